-- wrk script: each request likes or unlikes (at random) one review as one of the users whose
-- access tokens are listed, one per line, in the file named by $TOKENS. $REVIEW is the id.
local tokens = {}
for line in io.lines(os.getenv("TOKENS")) do tokens[#tokens + 1] = line end
local path = "/v1/reviews/" .. os.getenv("REVIEW") .. "/like"

request = function()
  local method = math.random(2) == 1 and "PUT" or "DELETE"
  return wrk.format(method, path, { ["Authorization"] = "Bearer " .. tokens[math.random(#tokens)] })
end
