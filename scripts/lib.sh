# Shared by the scripts: the JDK, Maven's flags, and starting the Docker Engine.
# shellcheck shell=bash
export JAVA_HOME="${JAVA_HOME_OVERRIDE:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$PATH"
export MAVEN_OPTS="${MAVEN_OPTS:---sun-misc-unsafe-memory-access=allow}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=""
apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

docker_answers() {
  curl -fsS --max-time 3 --unix-socket /var/run/docker.sock http://docker/_ping >/dev/null 2>&1
}

# Installs Debian's docker.io if needed and starts dockerd when the socket does not answer.
# chromium: the status page's test drives it headless.
docker_up() {
  apt_install docker.io busybox-static git curl ca-certificates chromium
  if docker_answers; then return 0; fi
  say "starting dockerd"
  if command -v systemctl >/dev/null && systemctl is-system-running >/dev/null 2>&1; then
    as_root systemctl start docker || true
  fi
  if ! docker_answers; then
    as_root sh -c 'nohup dockerd >/var/log/knotless-dockerd.log 2>&1 &'
  fi
  for _ in $(seq 1 60); do
    docker_answers && return 0
    sleep 1
  done
  echo "dockerd did not answer on /var/run/docker.sock within 60 s; see /var/log/knotless-dockerd.log" >&2
  return 1
}

maven_build() {
  say "building (mvn package, tests skipped)"
  (cd "$ROOT" && mvn -B -q -DskipTests -DskipITs package "$@")
}
