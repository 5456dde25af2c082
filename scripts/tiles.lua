-- wrk script: the tile requests of screens as MapLibre loads them (scripts/bench_tiles.py
-- screens writes them, in order, to the Lua file named by TILES), with `Accept-Encoding: gzip`
-- as a browser asks; with TILES_IF_NONE_MATCH=1 each carries its own tile's ETag, as a browser
-- revalidating its cache does. Each thread starts at its own place in the list.
dofile(os.getenv("TILES"))
local revalidate = os.getenv("TILES_IF_NONE_MATCH") == "1"
local threads = 0

function setup(thread)
  thread:set("offset", threads)
  threads = threads + 1
end

function init(args)
  index = (offset * 7919) % #tiles
end

request = function()
  index = index % #tiles + 1
  local path, tag = tiles[index][1], tiles[index][2]
  local headers = { ["Accept-Encoding"] = "gzip, deflate, br" }
  if revalidate then headers["If-None-Match"] = tag end
  return wrk.format("GET", path, headers)
end

done = function(summary, latency, requests)
  local bad = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write
  io.write(string.format("errors %d\n", bad))
end
