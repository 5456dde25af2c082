-- wrk script: GET /v1/places/nearby within 50 km (the largest radius) of random points of the
-- benchmark area (deterministic seed) with a filter no place of the benchmark database passes:
-- a category none has, reviewed_only (none has a review) or min_rating=4.5, in turn. Nothing
-- qualifies, so each search walks every place of its circle, about half of the 1,000,000.
math.randomseed(1)
local centerLat, centerLng, latSpan = 37.5665, 126.9780, 100 / 111.195
local lngSpan = latSpan / math.cos(math.rad(centerLat))
local filters = { "category=zz-none", "reviewed_only=true", "min_rating=4.5" }
local turn = 0

request = function()
  local lat = centerLat + (math.random() - 0.5) * latSpan
  local lng = centerLng + (math.random() - 0.5) * lngSpan
  turn = turn % #filters + 1
  return wrk.format("GET", string.format("/v1/places/nearby?lat=%.6f&lng=%.6f&radius_m=50000&%s",
    lat, lng, filters[turn]))
end
