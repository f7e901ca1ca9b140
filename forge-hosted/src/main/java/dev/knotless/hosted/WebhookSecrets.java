package dev.knotless.hosted;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The secrets forges sign their webhooks with ({@code daemon --webhook-secret-file}): one {@code
 * FORGE SECRET} a line, {@code FORGE} being {@code github}, {@code gitea}, {@code forgejo} (the same
 * as gitea) or {@code gitlab}. Several lines for one forge are all accepted, so a secret is rotated
 * by adding the new one, changing the forge, then removing the old. {@link #toString} names no secret.
 */
public final class WebhookSecrets {

    /** No secrets: every forge's hook answers that this daemon takes none. */
    public static final WebhookSecrets NONE = new WebhookSecrets(Map.of());

    private final Map<ForgeKind, List<byte[]>> secrets;

    WebhookSecrets(Map<ForgeKind, List<byte[]>> secrets) {
        Map<ForgeKind, List<byte[]>> copy = new EnumMap<>(ForgeKind.class);
        secrets.forEach((k, v) -> copy.put(k, v.stream().map(byte[]::clone).toList()));
        this.secrets = copy;
    }

    /**
     * Reads {@code file} (mode 0600 or stricter).
     *
     * @throws IllegalArgumentException naming the file and line (not its text) when a line is not {@code FORGE SECRET}
     */
    public static WebhookSecrets read(Path file) throws IOException {
        Map<ForgeKind, List<byte[]>> secrets = new EnumMap<>(ForgeKind.class);
        for (OwnerOnlyFile.Line line : OwnerOnlyFile.read(file)) {
            if (line.words().size() != 2) {
                throw new IllegalArgumentException(file + " line " + line.number() + ": want 'FORGE SECRET'"
                        + " (forge github, gitea, forgejo or gitlab; the secret one word)");
            }
            ForgeKind kind;
            try {
                kind = ForgeKind.parse(line.words().get(0));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + " line " + line.number() + ": " + e.getMessage());
            }
            secrets.computeIfAbsent(kind, k -> new ArrayList<>()).add(line.words().get(1).getBytes(StandardCharsets.UTF_8));
        }
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no 'FORGE SECRET' line");
        }
        return new WebhookSecrets(secrets);
    }

    /** The secrets {@code kind} may sign with; empty when its hooks are not taken. */
    List<byte[]> of(ForgeKind kind) {
        return secrets.getOrDefault(kind, List.of());
    }

    @Override
    public String toString() {
        return "webhook secrets for " + secrets.keySet();
    }
}
