package dev.knotless.registry;

/** A registry user name and password (or token), sent as Basic auth or to the token realm. */
public record Credentials(String username, String password) {

    public Credentials {
        if (username == null || username.isEmpty() || username.contains(":") || password == null) {
            throw new IllegalArgumentException("registry credentials need a user name without ':' and a password");
        }
    }

    @Override
    public String toString() {
        return "Credentials[" + username + ", password hidden]";
    }
}
