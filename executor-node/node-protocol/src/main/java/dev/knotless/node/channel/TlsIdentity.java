package dev.knotless.node.channel;

import dev.knotless.node.protocol.Ed25519Keys;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A side's TLS identity: its Ed25519 identity key and a self-signed certificate for it, made in
 * memory. The certificate is only a carrier for the key — peers trust the key by pin — so its
 * subject, serial and validity carry no trust; the TLS 1.3 CertificateVerify proves the key is held.
 */
public final class TlsIdentity {

    static final String PROTOCOL = "TLSv1.3";

    /** Clock skew allowed between the two sides when the peer checks the certificate's validity. */
    private static final Duration BACKDATE = Duration.ofDays(1);
    private static final Duration LIFETIME = Duration.ofDays(3650);

    private final PrivateKey privateKey;
    private final PublicKey publicKey;
    private final X509Certificate certificate;

    private TlsIdentity(PrivateKey privateKey, PublicKey publicKey, X509Certificate certificate) {
        this.privateKey = privateKey;
        this.publicKey = publicKey;
        this.certificate = certificate;
    }

    public static TlsIdentity of(KeyPair pair) {
        return of(pair.getPrivate(), pair.getPublic());
    }

    public static TlsIdentity of(PrivateKey privateKey, PublicKey publicKey) {
        Instant now = Instant.now();
        return selfSigned(privateKey, publicKey, now.minus(BACKDATE), now.plus(LIFETIME));
    }

    /** With an explicit validity; tests use it for certificates that are expired or not yet valid. */
    static TlsIdentity selfSigned(PrivateKey privateKey, PublicKey publicKey, Instant notBefore, Instant notAfter) {
        byte[] raw = Ed25519Keys.raw(publicKey);
        Ed25519Keys.raw(privateKey);
        X500Name subject = new X500Name("CN=" + Ed25519Keys.keyIdOf(raw));
        BigInteger serial = new BigInteger(127, new SecureRandom());
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    subject, serial, Date.from(notBefore), Date.from(notAfter), subject, publicKey)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                            new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            X509Certificate cert = new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder("Ed25519").build(privateKey)));
            try {
                cert.verify(publicKey);
            } catch (GeneralSecurityException e) {
                throw new IllegalArgumentException("the private key does not belong to the public key");
            }
            return new TlsIdentity(privateKey, publicKey, cert);
        } catch (OperatorCreationException | java.io.IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the identity certificate: " + e.getMessage(), e);
        }
    }

    public PublicKey publicKey() {
        return publicKey;
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** A TLS 1.3 context presenting this identity and trusting exactly the peers in {@code peers}. */
    public SSLContext sslContext(PeerPins peers) {
        return sslContext(peers, Clock.systemUTC());
    }

    SSLContext sslContext(PeerPins peers, Clock clock) {
        return sslContext(peers, clock, false);
    }

    /** With {@code enrolment}: a server's context that also admits unpinned clients under {@link Enrolment#ALPN}. */
    SSLContext sslContext(PeerPins peers, Clock clock, boolean enrolment) {
        try {
            SSLContext context = SSLContext.getInstance(PROTOCOL);
            context.init(new KeyManager[] {new IdentityKeyManager(certificate, privateKey)},
                    new TrustManager[] {new PinningTrustManager(peers, clock, enrolment)}, new SecureRandom());
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no " + PROTOCOL + ": " + e.getMessage(), e);
        }
    }

    /** Restricts a socket of this channel to TLS 1.3 and, on the server, requires the client's certificate. */
    static void restrict(SSLSocket socket, boolean server) {
        restrict(socket, server, new String[0]);
    }

    /** As {@link #restrict(SSLSocket, boolean)}, offering (client) or accepting (server) these ALPN protocols. */
    static void restrict(SSLSocket socket, boolean server, String[] applicationProtocols) {
        // Mode first: switching it resets protocols that are still the defaults.
        socket.setUseClientMode(!server);
        SSLParameters params = socket.getSSLParameters();
        params.setProtocols(new String[] {PROTOCOL});
        // Pins replace hostname checks; no endpoint identification.
        params.setEndpointIdentificationAlgorithm(null);
        if (server) {
            params.setNeedClientAuth(true);
        }
        if (applicationProtocols.length > 0) {
            params.setApplicationProtocols(applicationProtocols);
        }
        socket.setSSLParameters(params);
    }
}
