# Certificates and kubeconfigs for the test cluster, made with openssl under $PKI.
# Sourced by scripts/test-cluster (which sets PKI, STATE, NODE_NAME, APISERVER_PORT, SERVICE_IP).
# Keys and certificates are made only if missing, so `up` never rotates what running components use.
# shellcheck shell=bash

PKI_DAYS=3650

_new_key() { # ec key
    [ -f "$1" ] || { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.tmp" 2>/dev/null && chmod 600 "$1.tmp" && mv "$1.tmp" "$1"; }
}

# _new_ca NAME COMMON_NAME
_new_ca() {
    local name=$1 cn=$2
    [ -f "$PKI/$name.crt" ] && return 0
    _new_key "$PKI/$name.key"
    cat >"$PKI/$name.cnf" <<'EOF'
[req]
distinguished_name = dn
[dn]
[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier = hash
EOF
    openssl req -x509 -new -key "$PKI/$name.key" -subj "/CN=$cn" -days "$PKI_DAYS" -sha256 \
        -config "$PKI/$name.cnf" -extensions v3_ca -out "$PKI/$name.crt.tmp" 2>/dev/null
    mv "$PKI/$name.crt.tmp" "$PKI/$name.crt"
    rm -f "$PKI/$name.cnf"
}

# _sign NAME SUBJECT EXTENDED_KEY_USAGE [SUBJECT_ALT_NAMES]  (signed by $SIGNING_CA, default ca)
_sign() {
    local name=$1 subj=$2 eku=$3 san=${4:-} ca=${SIGNING_CA:-ca}
    [ -f "$PKI/$name.crt" ] && [ -f "$PKI/$name.key" ] && return 0
    _new_key "$PKI/$name.key"
    {
        echo "basicConstraints = critical, CA:FALSE"
        echo "keyUsage = critical, digitalSignature, keyEncipherment"
        echo "extendedKeyUsage = $eku"
        [ -n "$san" ] && echo "subjectAltName = $san"
    } >"$PKI/$name.ext"
    openssl req -new -key "$PKI/$name.key" -subj "$subj" -out "$PKI/$name.csr" 2>/dev/null
    openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/$ca.crt" -CAkey "$PKI/$ca.key" \
        -set_serial "0x$(openssl rand -hex 16)" -days "$PKI_DAYS" -sha256 \
        -extfile "$PKI/$name.ext" -out "$PKI/$name.crt.tmp" 2>/dev/null
    mv "$PKI/$name.crt.tmp" "$PKI/$name.crt"
    rm -f "$PKI/$name.csr" "$PKI/$name.ext"
}

# _kubeconfig FILE CERT_NAME USER
_kubeconfig() {
    local file=$1 cert=$2 user=$3
    # Rewritten on each start (cheap, and follows a changed port); atomically, private.
    (umask 077; cat >"$file.tmp") <<EOF
apiVersion: v1
kind: Config
clusters:
- name: knotless
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(base64 -w0 "$PKI/ca.crt")
users:
- name: $user
  user:
    client-certificate-data: $(base64 -w0 "$PKI/$cert.crt")
    client-key-data: $(base64 -w0 "$PKI/$cert.key")
contexts:
- name: knotless
  context:
    cluster: knotless
    user: $user
current-context: knotless
EOF
    mv "$file.tmp" "$file"
}

make_pki() {
    mkdir -p "$PKI"
    chmod 700 "$PKI"
    _new_ca ca knotless-test-cluster-ca
    # The API server's request-header authentication (aggregation layer); without it the
    # controller manager and scheduler log errors about a missing client CA every few seconds.
    _new_ca front-proxy-ca knotless-test-cluster-front-proxy-ca
    SIGNING_CA=front-proxy-ca _sign front-proxy-client "/CN=front-proxy-client" clientAuth
    _sign apiserver "/CN=kube-apiserver" serverAuth \
        "DNS:localhost, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local, DNS:$NODE_NAME, IP:127.0.0.1, IP:$SERVICE_IP"
    _sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
    _sign admin "/O=system:masters/CN=knotless-admin" clientAuth
    _sign controller-manager "/CN=system:kube-controller-manager" clientAuth
    _sign scheduler "/CN=system:kube-scheduler" clientAuth
    _sign "kubelet-client-$NODE_NAME" "/O=system:nodes/CN=system:node:$NODE_NAME" clientAuth
    _sign "kubelet-serving-$NODE_NAME" "/CN=$NODE_NAME" serverAuth "DNS:$NODE_NAME, IP:127.0.0.1"
    if [ ! -f "$PKI/sa.key" ]; then
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/sa.key.tmp" 2>/dev/null
        chmod 600 "$PKI/sa.key.tmp"
        mv "$PKI/sa.key.tmp" "$PKI/sa.key"
    fi
    [ -f "$PKI/sa.pub" ] || openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null

    _kubeconfig "$STATE/admin.kubeconfig" admin knotless-admin
    _kubeconfig "$STATE/controller-manager.kubeconfig" controller-manager system:kube-controller-manager
    _kubeconfig "$STATE/scheduler.kubeconfig" scheduler system:kube-scheduler
    _kubeconfig "$STATE/kubelet-$NODE_NAME.kubeconfig" "kubelet-client-$NODE_NAME" "system:node:$NODE_NAME"
}
