package dev.knotless.http;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Where the HTTP server listens: {@code HOST:PORT}, {@code :PORT} (loopback) or {@code PORT}
 * (loopback). Port 0 picks a free port. An IPv6 host goes in brackets: {@code [::1]:7420}.
 */
public record Listen(String host, int port) {

    public static final String DEFAULT = "127.0.0.1:7420";

    public Listen {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not between 0 and 65535");
        }
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("no host");
        }
    }

    /** Parses {@code HOST:PORT}; one line of error for anything else. */
    public static Listen parse(String text) {
        String t = text.strip();
        String host = "127.0.0.1";
        String port = t;
        int colon = t.lastIndexOf(':');
        if (t.startsWith("[")) {
            int close = t.indexOf(']');
            if (close < 0 || colon < close) {
                throw new IllegalArgumentException("'" + text + "' is not HOST:PORT (an IPv6 host goes in brackets: [::1]:7420)");
            }
            host = t.substring(1, close);
            port = t.substring(colon + 1);
        } else if (colon >= 0) {
            if (t.indexOf(':') != colon) {
                throw new IllegalArgumentException("'" + text + "' is not HOST:PORT (an IPv6 host goes in brackets: [::1]:7420)");
            }
            host = colon == 0 ? host : t.substring(0, colon);
            port = t.substring(colon + 1);
        }
        try {
            return new Listen(host, Integer.parseInt(port));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not HOST:PORT: '" + port + "' is not a port number");
        }
    }

    /** True when only this machine can connect: a loopback address (or a name for one). */
    public boolean loopback() {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
