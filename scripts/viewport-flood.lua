-- wrk script: GET /v1/places?bbox=…&limit=1 over two boxes of the benchmark area (1,000,000
-- places spread evenly over 100 km x 100 km around 37.5665, 126.9780), in turn:
--   a dense box, 58 km x 58 km around the centre: ~336,000 places (a third), over the store's
--     cap of 50,000 R*Tree candidates, so the store counts 50,001 candidates and then walks the
--     most-reviewed index (places_by_review_count) testing lat/lng;
--   a small box, 17 km x 18 km: ~29,400 places (3%), under the cap, so every candidate's row is
--     read and sorted by review count.
local boxes = {
  "126.650000,37.310000,127.310000,37.830000",
  "126.880000,37.490000,127.080000,37.640000",
}
local turn = 0

request = function()
  turn = turn % #boxes + 1
  return wrk.format("GET", "/v1/places?bbox=" .. boxes[turn] .. "&limit=1")
end
