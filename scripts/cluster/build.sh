# Builds kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and kubectl from
# Debian's `kubernetes` source package, once per source version, into
#   $K8S_CACHE/<source version>/bin
# Sourced by scripts/test-cluster (which provides say, apt_install and the variables below).
# shellcheck shell=bash

K8S_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)
# Bump when the patches applied below change, so that old caches are not used. (A cluster that is
# up and healthy keeps running its binaries; the next start after `down` builds and uses the new.)
K8S_PATCH_LEVEL=3
K8S_PATCHES_DIR=$ROOT/scripts/cluster/patches

# Adds a deb-src entry for the same archive as the system's deb entries (a copy of
# /etc/apt/sources.list.d/debian.sources with "Types: deb-src"). `apt-get update` must follow
# before apt knows the source packages (the next apt_install or resolve_k8s_version does it).
ensure_deb_src() {
    local src=/etc/apt/sources.list.d/debian.sources dst=/etc/apt/sources.list.d/knotless-deb-src.sources
    [ -f "$dst" ] || [ -f "${dst%.sources}.list" ] && return 0
    if [ -f "$src" ]; then
        sed -E 's/^Types:.*/Types: deb-src/' "$src" >"$dst.tmp"
    elif [ -f /etc/apt/sources.list ] && grep -qE '^deb[[:space:]]' /etc/apt/sources.list; then
        # Older one-line format.
        sed -nE 's/^deb([[:space:]])/deb-src\1/p' /etc/apt/sources.list >"$dst.tmp"
        dst=/etc/apt/sources.list.d/knotless-deb-src.list
    else
        echo "test-cluster: no Debian apt source found to derive a deb-src entry from" >&2
        return 0
    fi
    mv "$dst.tmp" "$dst"
    say "added $dst"
}

# Highest source version of `kubernetes` apt knows about (empty when deb-src lists are missing).
k8s_source_version() {
    apt-cache showsrc kubernetes 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n1
}

k8s_cache_complete() {
    local dir=$K8S_CACHE/$1/bin b
    [ -f "$dir/.complete" ] || return 1
    [ "$(cat "$dir/.complete")" = "patch-level $K8S_PATCH_LEVEL" ] || return 1
    for b in "${K8S_BINARIES[@]}"; do [ -x "$dir/$b" ] || return 1; done
}

# Sets K8S_VERSION: $KNOTLESS_K8S_VERSION, else what deb-src offers, else the newest complete
# cache (no network needed), else runs apt-get update and asks apt again.
resolve_k8s_version() {
    local v=${KNOTLESS_K8S_VERSION:-} d
    [ -n "$v" ] || v=$(k8s_source_version)
    if [ -z "$v" ] && [ -d "$K8S_CACHE" ]; then
        for d in $(find "$K8S_CACHE" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort -rV); do
            if k8s_cache_complete "$d"; then v=$d; break; fi
        done
    fi
    if [ -z "$v" ]; then
        apt_get_update
        v=$(k8s_source_version)
    fi
    if [ -z "$v" ]; then
        echo "test-cluster: apt knows no source package 'kubernetes' (is the deb-src entry there?)" >&2
        return 1
    fi
    K8S_VERSION=$v
}

# "1.20.5+really1.20.2-1.1+deb12u1" -> "1.20.2"
k8s_upstream_version() {
    local v=${1#*:}
    v=${v%-*}
    case "$v" in *really*) v=${v##*really} ;; esac
    v=${v%%[~+]*}
    printf '%s\n' "$v"
}

patch_k8s_source() {
    local tree=$1
    # Root here lacks CAP_SYS_RESOURCE, so runc cannot lower oom_score_adj below its own value:
    # the dockershim's -998 for sandboxes and -997 for Guaranteed pods make every container start
    # fail with "can't get final child's PID from pipe: EOF". Use 0 for both.
    sed -i -E 's/^(\s*defaultSandboxOOMAdj int = )-998$/\10/' "$tree/pkg/kubelet/dockershim/docker_sandbox.go"
    sed -i -E 's/^(\s*guaranteedOOMScoreAdj int = )-997$/\10/' "$tree/pkg/kubelet/qos/policy.go"
    grep -qE '^\s*defaultSandboxOOMAdj int = 0$' "$tree/pkg/kubelet/dockershim/docker_sandbox.go" &&
        grep -qE '^\s*guaranteedOOMScoreAdj int = 0$' "$tree/pkg/kubelet/qos/policy.go" || {
        echo "test-cluster: the oom_score_adj patch did not apply to this source version" >&2
        return 1
    }
    # Fixes for building this old tree with a newer Go, and the kubelet's status sync period (see
    # each file's header).
    local p
    for p in "$K8S_PATCHES_DIR"/*.patch; do
        patch -d "$tree" -p1 --forward --batch --silent <"$p" || {
            echo "test-cluster: $(basename "$p") did not apply to this source version" >&2
            return 1
        }
    done
}

# Builds into $K8S_CACHE/$1/bin unless a complete build is there. Serialised by a lock on the
# cache, so concurrent runs (other state dirs, CI) build once.
build_k8s() {
    local version=$1 dest=$K8S_CACHE/$1
    mkdir -p "$dest"
    exec 8>"$dest/.build.lock"
    if ! flock -n 8; then
        say "another process is building kubernetes $version; waiting for it"
        flock 8
    fi
    if k8s_cache_complete "$version"; then exec 8>&-; return 0; fi

    # The package's Build-Depends that matter here: golang-go, rsync, jq.
    apt_install golang-go dpkg-dev patch rsync jq curl openssl
    local upstream major minor work tree start
    upstream=$(k8s_upstream_version "$version")
    major=${upstream%%.*}
    minor=${upstream#*.}; minor=${minor%%.*}
    work=$dest/build
    rm -rf "$work" "$dest/bin.new"
    mkdir -p "$work"
    say "building kubernetes $upstream from Debian source $version (5 to 20 minutes on 2 cores, depending on load; log: $dest/build.log)"
    start=$(date +%s)
    (
        cd "$work"
        # apt downloads as root with a warning about the _apt sandbox; harmless here.
        apt-get source -qq "kubernetes=$version" 2>&1 | grep -v 'Download is performed unsandboxed' || true
    ) >"$dest/build.log" 2>&1
    tree=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -n1)
    if [ -z "$tree" ] || [ ! -f "$tree/Makefile" ]; then
        echo "test-cluster: apt-get source kubernetes=$version failed; see $dest/build.log" >&2
        tail -n 20 "$dest/build.log" >&2
        return 1
    fi
    patch_k8s_source "$tree"
    # GOPATH mode, as Debian's rules build it (module mode with -mod=vendor does not build 1.20).
    mkdir -p "$tree/.go/src/k8s.io" "$work/home"
    [ -L "$tree/.go/src/k8s.io/kubernetes" ] || ln -s ../../.. "$tree/.go/src/k8s.io/kubernetes"
    local what="" b
    for b in "${K8S_BINARIES[@]}"; do what+="cmd/$b "; done
    if ! (
        cd "$tree"
        env HOME="$work/home" GOPATH="$tree/.go" GOCACHE="$work/gocache" \
            CGO_ENABLED=0 GOPROXY=off GOFLAGS= GOTOOLCHAIN=local \
            KUBE_GIT_VERSION="v$upstream" KUBE_GIT_MAJOR="$major" KUBE_GIT_MINOR="$minor" \
            KUBE_GIT_TREE_STATE=archive \
            PATH="/usr/lib/go/bin:$PATH" \
            make WHAT="${what% }"
    ) >>"$dest/build.log" 2>&1; then
        echo "test-cluster: building kubernetes failed; last lines of $dest/build.log:" >&2
        tail -n 30 "$dest/build.log" >&2
        return 1
    fi
    mkdir -p "$dest/bin.new"
    for b in "${K8S_BINARIES[@]}"; do install -m 0755 "$tree/_output/bin/$b" "$dest/bin.new/$b"; done
    echo "patch-level $K8S_PATCH_LEVEL" >"$dest/bin.new/.complete"
    rm -rf "$dest/bin"
    mv "$dest/bin.new" "$dest/bin"
    rm -rf "$work"
    say "built kubernetes $upstream in $(($(date +%s) - start)) s -> $dest/bin"
    exec 8>&-
}
