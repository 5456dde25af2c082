-- wrk script: GET /v1/places/nearby at random points of the benchmark area (deterministic seed),
-- 20 nearest within 2 km. $NEARBY_QUERY, when set, is appended to each query (`&lang=ko`);
-- $NEARBY_PATH replaces the path (`/nearby`, the same-work route of `burgermap-bench
-- bare-route`); headers given to wrk with -H go with every request.
math.randomseed(7)
local centerLat, centerLng, latSpan = 37.5665, 126.9780, 100 / 111.195
local lngSpan = latSpan / math.cos(math.rad(centerLat))
local extra = os.getenv("NEARBY_QUERY") or ""
local path = os.getenv("NEARBY_PATH") or "/v1/places/nearby"

request = function()
  local lat = centerLat + (math.random() - 0.5) * latSpan
  local lng = centerLng + (math.random() - 0.5) * lngSpan
  return wrk.format("GET", string.format("%s?lat=%.6f&lng=%.6f&radius_m=2000&limit=20", path, lat, lng) .. extra)
end
