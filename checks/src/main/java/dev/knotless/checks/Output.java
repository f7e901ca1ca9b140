package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * A file the run put in {@code /outputs}.
 *
 * @param name path relative to {@code /outputs}
 * @param mediaType recognised from the file's first bytes, not its name
 * @param path where it is on the runner host
 */
public record Output(String name, String mediaType, long bytes, String path) {

    @JsonIgnore
    public boolean isImage() {
        return mediaType.startsWith("image/");
    }
}
