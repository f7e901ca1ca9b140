package dev.knotless.executor.node.channel;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/** Presents the one identity certificate, for the key type it is (the JDK asks for {@code EdDSA}). */
final class IdentityKeyManager extends X509ExtendedKeyManager {

    static final String ALIAS = "identity";

    private final X509Certificate certificate;
    private final PrivateKey key;

    IdentityKeyManager(X509Certificate certificate, PrivateKey key) {
        this.certificate = certificate;
        this.key = key;
    }

    private String aliasFor(String keyType) {
        return matches(keyType) ? ALIAS : null;
    }

    private boolean matches(String keyType) {
        return keyType != null && (keyType.equalsIgnoreCase(key.getAlgorithm())
                || keyType.equalsIgnoreCase("EdDSA") || keyType.equalsIgnoreCase("Ed25519"));
    }

    private String aliasFor(String[] keyTypes) {
        if (keyTypes != null) {
            for (String type : keyTypes) {
                if (matches(type)) {
                    return ALIAS;
                }
            }
        }
        return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return matches(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        return aliasFor(keyTypes);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        return aliasFor(keyTypes);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return matches(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return aliasFor(keyType);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return aliasFor(keyType);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return ALIAS.equals(alias) ? new X509Certificate[] {certificate} : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return ALIAS.equals(alias) ? key : null;
    }
}
