package dev.knotless.node.channel;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.jspecify.annotations.Nullable;

/** Presents the one identity certificate, for the key type it is (the JDK asks for {@code EdDSA}). */
final class IdentityKeyManager extends X509ExtendedKeyManager {

    static final String ALIAS = "identity";

    private final X509Certificate certificate;
    private final PrivateKey key;

    IdentityKeyManager(X509Certificate certificate, PrivateKey key) {
        this.certificate = certificate;
        this.key = key;
    }

    private @Nullable String aliasFor(@Nullable String keyType) {
        return matches(keyType) ? ALIAS : null;
    }

    private boolean matches(@Nullable String keyType) {
        return keyType != null && (keyType.equalsIgnoreCase(key.getAlgorithm())
                || keyType.equalsIgnoreCase("EdDSA") || keyType.equalsIgnoreCase("Ed25519"));
    }

    private @Nullable String aliasFor(String @Nullable [] keyTypes) {
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
    public String @Nullable [] getClientAliases(@Nullable String keyType, Principal @Nullable [] issuers) {
        return matches(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public @Nullable String chooseClientAlias(String @Nullable [] keyTypes, Principal @Nullable [] issuers, @Nullable Socket socket) {
        return aliasFor(keyTypes);
    }

    @Override
    public @Nullable String chooseEngineClientAlias(String @Nullable [] keyTypes, Principal @Nullable [] issuers,
            @Nullable SSLEngine engine) {
        return aliasFor(keyTypes);
    }

    @Override
    public String @Nullable [] getServerAliases(@Nullable String keyType, Principal @Nullable [] issuers) {
        return matches(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public @Nullable String chooseServerAlias(@Nullable String keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
        return aliasFor(keyType);
    }

    @Override
    public @Nullable String chooseEngineServerAlias(@Nullable String keyType, Principal @Nullable [] issuers,
            @Nullable SSLEngine engine) {
        return aliasFor(keyType);
    }

    @Override
    public X509Certificate @Nullable [] getCertificateChain(@Nullable String alias) {
        return ALIAS.equals(alias) ? new X509Certificate[] {certificate} : null;
    }

    @Override
    public @Nullable PrivateKey getPrivateKey(@Nullable String alias) {
        return ALIAS.equals(alias) ? key : null;
    }
}
