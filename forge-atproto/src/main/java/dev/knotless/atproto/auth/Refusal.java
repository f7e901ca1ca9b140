package dev.knotless.atproto.auth;

import java.util.Objects;

/**
 * Why a service-auth token is refused; an exception only to leave the checks early, so without a
 * stack trace. Its message is one printable line: what it quotes of the token comes from anyone, so
 * it goes through {@link #shown} first.
 */
final class Refusal extends Exception {

    private static final long serialVersionUID = 1L;
    private static final int SHOWN_CHARS = 100;

    Refusal(String reason) {
        super(reason, null, false, false);
    }

    @Override
    public String getMessage() {
        return Objects.requireNonNull(super.getMessage());
    }

    /** {@code s} {@link #shown} between double quotes. */
    static String quoted(String s) {
        return "\"" + shown(s) + "\"";
    }

    static String shown(String s) {
        return shown(s, SHOWN_CHARS);
    }

    /** {@code s} as printable ASCII on one line, at most {@code max} characters: it may come from anyone. */
    static String shown(String s, int max) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < max; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return s.length() > max ? b + "…" : b.toString();
    }
}
