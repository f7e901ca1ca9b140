package dev.knotless.node.channel;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Certificates the channel must refuse: CA-issued chains, RSA and EC keys. */
final class TestCerts {

    private TestCerts() {}

    static KeyPair generate(String algorithm) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
        if (algorithm.equals("RSA")) {
            g.initialize(2048);
        }
        return g.generateKeyPair();
    }

    static String signatureFor(PrivateKey key) {
        return switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> "Ed25519";
        };
    }

    static X509Certificate issue(String subject, PublicKey subjectKey, String issuer, PrivateKey issuerKey, boolean ca)
            throws Exception {
        Instant now = Instant.now();
        return issue(subject, subjectKey, issuer, issuerKey, ca, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    }

    static X509Certificate issue(String subject, PublicKey subjectKey, String issuer, PrivateKey issuerKey, boolean ca,
            Instant notBefore, Instant notAfter) throws Exception {
        var builder = new JcaX509v3CertificateBuilder(new X500Name("CN=" + issuer), new BigInteger(64, new SecureRandom()),
                Date.from(notBefore), Date.from(notAfter), new X500Name("CN=" + subject), subjectKey)
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        return new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder(signatureFor(issuerKey)).build(issuerKey)));
    }

    /** A CA (RSA) and a leaf (RSA) it issued: what a conventional PKI would hand out. */
    static Chain caIssuedRsa() throws Exception {
        KeyPair ca = generate("RSA");
        KeyPair leaf = generate("RSA");
        X509Certificate caCert = issue("test-ca", ca.getPublic(), "test-ca", ca.getPrivate(), true);
        X509Certificate leafCert = issue("leaf", leaf.getPublic(), "test-ca", ca.getPrivate(), false);
        return new Chain(leaf.getPrivate(), new X509Certificate[] {leafCert, caCert});
    }

    record Chain(PrivateKey key, X509Certificate[] certificates) {}

    /** A TLS 1.3 context presenting {@code chain} and trusting anything: a peer that does not pin. */
    static SSLContext presenting(Chain chain) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("k", chain.key(), "pw".toCharArray(), chain.certificates());
        KeyManagerFactory kmf = KeyManagerFactory.getInstance("PKIX");
        kmf.init(store, "pw".toCharArray());
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(kmf.getKeyManagers(), new TrustManager[] {new TrustingEverything()}, new SecureRandom());
        return context;
    }

    private static final class TrustingEverything implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
