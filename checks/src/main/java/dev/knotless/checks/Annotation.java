package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A message a step raised about its work, such as GitHub Actions' {@code ::error file=F,line=L::}:
 * shown on the check beside the step, pointing into the commit when it names a file.
 *
 * @param file the path it points at, relative to the workspace when it was inside it; null for none
 * @param line the first line, from 1; null for none
 * @param endLine the last line; null for none
 * @param col the first column; null for none
 * @param endColumn the last column; null for none
 * @param title a short heading; null for none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Annotation(Kind kind, String message, @Nullable String file, @Nullable Integer line, @Nullable Integer endLine,
        @Nullable Integer col, @Nullable Integer endColumn, @Nullable String title) {

    /** How serious it is. */
    public enum Kind {
        ERROR, WARNING, NOTICE;

        @JsonValue
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public Annotation {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }

    /** A message that points nowhere. */
    public static Annotation of(Kind kind, String message) {
        return new Annotation(kind, message, null, null, null, null, null, null);
    }

    /** The same annotation with its texts replaced (a masked copy). */
    public Annotation withText(String newMessage, @Nullable String newFile, @Nullable String newTitle) {
        return new Annotation(kind, newMessage, newFile, line, endLine, col, endColumn, newTitle);
    }
}
