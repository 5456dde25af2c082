-- wrk script: GET /v1/places/clusters for 1280 x 800-pixel screens at random points of the
-- benchmark area and random zooms 10-18 (deterministic seed).
math.randomseed(11)
local centerLat, centerLng, latSpan = 37.5665, 126.9780, 100 / 111.195
local lngSpan = latSpan / math.cos(math.rad(centerLat))

request = function()
  local lat = centerLat + (math.random() - 0.5) * latSpan
  local lng = centerLng + (math.random() - 0.5) * lngSpan
  local zoom = math.random(10, 18)
  local degreesPerPixel = 360 / (256 * 2 ^ zoom)
  local halfWidth, halfHeight = 640 * degreesPerPixel, 400 * degreesPerPixel * math.cos(math.rad(lat))
  return wrk.format("GET", string.format("/v1/places/clusters?bbox=%.6f,%.6f,%.6f,%.6f&zoom=%d",
    lng - halfWidth, lat - halfHeight, lng + halfWidth, lat + halfHeight, zoom))
end
