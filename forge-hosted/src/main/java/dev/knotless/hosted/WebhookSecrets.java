package dev.knotless.hosted;

import dev.knotless.forge.Repository;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The secrets forges sign their webhooks with ({@code daemon --webhook-secret-file}): one line a
 * secret, {@code FORGE OWNER/NAME SECRET} for one watched repository's hooks, or {@code FORGE
 * SECRET} for every repository of that forge. {@code FORGE} is {@code github}, {@code gitea},
 * {@code forgejo} (the same as gitea) or {@code gitlab}. Several lines for one forge and repository
 * are all accepted, so a secret is rotated by adding the new one, changing the forge, then
 * removing the old. {@link #toString} names no secret.
 *
 * <p>A repository's own secret is what a forge gives each repository's hook: whoever can read one
 * repository's hook settings then speaks for that repository alone. A forge-wide secret lets
 * whoever holds it speak for every watched repository of the forge (mark any pull request
 * trusted, say); it is still read, and said at start ({@link #forgeWide}).
 */
public final class WebhookSecrets {

    /** No secrets: every forge's hook answers that this daemon takes none. */
    public static final WebhookSecrets NONE = new WebhookSecrets(Map.of());

    /**
     * One secret and what it may sign for.
     *
     * @param repo the watched repository ({@code owner/name}) whose hooks it signs; null for every repository of the forge
     */
    record Key(@Nullable String repo, byte[] secret) {

        /** Whether a hook signed with this key may speak for watched repository {@code name}. */
        boolean signsFor(String name) {
            return repo == null || repo.equals(name);
        }
    }

    private final Map<ForgeKind, List<Key>> secrets;

    WebhookSecrets(Map<ForgeKind, List<Key>> secrets) {
        Map<ForgeKind, List<Key>> copy = new EnumMap<>(ForgeKind.class);
        secrets.forEach((k, v) -> copy.put(k, v.stream().map(key -> new Key(key.repo(), key.secret().clone())).toList()));
        this.secrets = copy;
    }

    /**
     * Reads {@code file} (mode 0600 or stricter).
     *
     * @throws IllegalArgumentException naming the file and line (not its text) when a line is neither
     *     {@code FORGE OWNER/NAME SECRET} nor {@code FORGE SECRET}
     */
    public static WebhookSecrets read(Path file) throws IOException {
        Map<ForgeKind, List<Key>> secrets = new EnumMap<>(ForgeKind.class);
        for (OwnerOnlyFile.Line line : OwnerOnlyFile.read(file)) {
            List<String> words = line.words();
            if (words.size() != 2 && words.size() != 3) {
                throw new IllegalArgumentException(file + " line " + line.number() + ": want 'FORGE OWNER/NAME SECRET'"
                        + " or 'FORGE SECRET' (forge github, gitea, forgejo or gitlab; the secret one word)");
            }
            ForgeKind kind;
            String repo = words.size() == 3 ? words.get(1) : null;
            try {
                kind = ForgeKind.parse(words.get(0));
                if (repo != null) {
                    Repository.checkName(repo);
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + " line " + line.number() + ": " + e.getMessage());
            }
            secrets.computeIfAbsent(kind, k -> new ArrayList<>())
                    .add(new Key(repo, words.getLast().getBytes(StandardCharsets.UTF_8)));
        }
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no 'FORGE OWNER/NAME SECRET' line");
        }
        return new WebhookSecrets(secrets);
    }

    /** The keys {@code kind} may sign with; empty when its hooks are not taken. */
    List<Key> of(ForgeKind kind) {
        return secrets.getOrDefault(kind, List.of());
    }

    /** The forges with a forge-wide line, whose holder speaks for each of their watched repositories. */
    public List<ForgeKind> forgeWide() {
        return secrets.entrySet().stream().filter(e -> e.getValue().stream().anyMatch(k -> k.repo() == null))
                .map(Map.Entry::getKey).toList();
    }

    @Override
    public String toString() {
        return "webhook secrets for " + secrets.keySet();
    }
}
