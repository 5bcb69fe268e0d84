-- wrk script for the bridge's ingest benchmark: each request is a distinct, correctly signed
-- Standard Webhooks message, read from the file scripts/bench/bridge-requests.py wrote
-- (BRIDGE_REQUESTS). BRIDGE_RATE (requests per second, for one wrk thread) paces the load for
-- latency at a set rate: each request gets the next slot of one schedule shared by all the
-- connections, so the rate holds whatever the latency is (a fixed delay per connection would
-- add the latency to every gap and fall short of the rate).
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } liveline_timespec;
int clock_gettime(int clock, liveline_timespec *time);
]]
local path = "/v1/webhooks/orders"
local lines = {}
local index = 0
local rate = tonumber(os.getenv("BRIDGE_RATE") or "0")
local interval = rate > 0 and 1000 / rate or 0
local nextSlot = nil
local timespec = ffi.new("liveline_timespec")

-- Milliseconds on the monotonic clock.
local function now()
  ffi.C.clock_gettime(1, timespec)
  return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

function init(args)
  for line in io.lines(os.getenv("BRIDGE_REQUESTS")) do
    lines[#lines + 1] = line
  end
end

function request()
  index = index + 1
  if index > #lines then index = 1 end
  local id, ts, sig, body = lines[index]:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
  return wrk.format("POST", path, {
    ["Content-Type"] = "application/json",
    ["webhook-id"] = id,
    ["webhook-timestamp"] = ts,
    ["webhook-signature"] = sig,
  }, body)
end

function delay()
  if interval == 0 then return 0 end
  local t = now()
  if nextSlot == nil or nextSlot < t - 100 then nextSlot = t end
  local slot = nextSlot
  nextSlot = nextSlot + interval
  return math.max(0, math.floor(slot - t))
end

function done(summary, latency, requests)
  io.write(string.format("p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
