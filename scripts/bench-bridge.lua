-- wrk script for the bridge's ingest benchmark: each request is a distinct, correctly signed
-- Standard Webhooks message, read from the file scripts/bench-bridge-requests.py wrote
-- (BRIDGE_REQUESTS). BRIDGE_DELAY_MS paces each connection (for latency at a set rate).
local path = "/v1/webhooks/orders"
local lines = {}
local index = 0
local pace = tonumber(os.getenv("BRIDGE_DELAY_MS") or "0")

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
  return pace
end

function done(summary, latency, requests)
  io.write(string.format("p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
