package dev.knotless.node.channel;

import dev.knotless.node.protocol.Ed25519Keys;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Date;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts a peer by its key, not by a CA: exactly one certificate, an Ed25519 key that is pinned,
 * self-signed under that key, valid now. This replaces both chain building and hostname checks; the
 * name a connection is bound to is the pinned name, whatever the certificate says about itself.
 */
final class PinningTrustManager extends X509ExtendedTrustManager {

    private static final X509Certificate[] NO_ISSUERS = new X509Certificate[0];

    /** The name a connection gets while its key is checked for enrolment only (never a node id). */
    static final String ENROLLING = "(enrolling)";

    private final PeerPins pins;
    private final Clock clock;
    private final boolean enrolment;

    PinningTrustManager(PeerPins pins, Clock clock) {
        this(pins, clock, false);
    }

    /**
     * With {@code enrolment}, a client that asked for {@link Enrolment#ALPN} may present an unpinned
     * key (still exactly one valid self-signed Ed25519 certificate): what it may then do is the
     * enrolment exchange alone, which {@link ChannelServer} enforces.
     */
    PinningTrustManager(PeerPins pins, Clock clock, boolean enrolment) {
        this.pins = pins;
        this.clock = clock;
        this.enrolment = enrolment;
    }

    /** Returns the pinned name of the peer that presented {@code chain}, or explains the refusal. */
    String check(X509Certificate[] chain) throws CertificateException {
        return check(chain, true);
    }

    private String checkClient(X509Certificate[] chain, Socket socket) throws CertificateException {
        boolean enrolling = enrolment && socket instanceof SSLSocket tls
                && Enrolment.ALPN.equals(tls.getHandshakeApplicationProtocol());
        return check(chain, !enrolling);
    }

    private String check(X509Certificate[] chain, boolean pinned) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("the peer presented no certificate");
        }
        if (chain.length != 1) {
            throw new CertificateException("the peer presented a chain of " + chain.length
                    + " certificates; a pinned peer presents exactly one, self-signed");
        }
        X509Certificate cert = chain[0];
        byte[] raw;
        try {
            raw = Ed25519Keys.raw(cert.getPublicKey());
        } catch (IllegalArgumentException e) {
            throw new CertificateException("the peer's certificate holds a " + cert.getPublicKey().getAlgorithm()
                    + " key; only pinned Ed25519 keys are accepted");
        }
        String name = pinned ? pins.nameOf(raw).orElseThrow(() -> new CertificateException(
                "the peer's key " + Ed25519Keys.keyIdOf(raw) + " is not pinned")) : ENROLLING;
        try {
            cert.verify(cert.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new CertificateException("the certificate of " + name + " is not self-signed by its own key");
        }
        try {
            cert.checkValidity(Date.from(clock.instant()));
        } catch (CertificateException e) {
            throw new CertificateException("the certificate of " + name + " is not valid now (valid from "
                    + cert.getNotBefore().toInstant() + " to " + cert.getNotAfter().toInstant() + ")");
        }
        return name;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        checkClient(chain, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        check(chain);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        // No CA list in the CertificateRequest: the peer has only its one identity to offer.
        return NO_ISSUERS;
    }
}
