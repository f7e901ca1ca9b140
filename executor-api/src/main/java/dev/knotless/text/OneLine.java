package dev.knotless.text;

import org.jspecify.annotations.Nullable;

/**
 * A message made fit for one line of a log, a notice or a check's reason. Every module writes such
 * lines, and a message from a process, a server or an exception may hold line breaks that would
 * split a log record or forge a second one.
 */
public final class OneLine {

    private OneLine() {}

    /** {@code text} with each line break, and the blanks around it, as one space; ends stripped. */
    public static String of(@Nullable String text) {
        return text == null ? "" : text.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /** {@link #of(String)}, cut to {@code most} characters and an ellipsis when longer. */
    public static String of(@Nullable String text, int most) {
        return cut(of(text), most);
    }

    /** An exception's message on one line, or its class's simple name when it has none. */
    public static String of(Throwable e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : of(m);
    }

    /**
     * Text from outside (a server's answer, a record, a stream): every run of control characters
     * and blanks as one space, ends stripped, cut to {@code most} characters and an ellipsis.
     */
    public static String ofUntrusted(@Nullable String text, int most) {
        return text == null ? "" : cut(text.replaceAll("[\\p{Cntrl}\\s]+", " ").strip(), most);
    }

    private static String cut(String line, int most) {
        return line.length() > most ? line.substring(0, most) + "…" : line;
    }
}
