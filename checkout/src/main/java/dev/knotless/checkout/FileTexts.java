package dev.knotless.checkout;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The files of one directory of a commit, as {@link Mirror#texts} read them: the text of each it
 * could read, and for each it would not, why, so that one bad file does not hide the others.
 *
 * @param texts path from the repository root to the file's text, in path order
 * @param refused path to the one-line reason it was not read ({@code is 10737418240 bytes; ...},
 *     {@code is not UTF-8 text}), in path order
 */
public record FileTexts(Map<String, String> texts, Map<String, String> refused) {

    public FileTexts {
        texts = Collections.unmodifiableMap(new LinkedHashMap<>(texts));
        refused = Collections.unmodifiableMap(new LinkedHashMap<>(refused));
    }
}
