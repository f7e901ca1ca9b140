package dev.knotless.forge.embedded;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The refs the embedded forge reads as pull requests: its own {@code refs/pulls/N/head} and the
 * hosted forges' spellings. Apart from {@link EmbeddedForge} because which ref stands for a pull
 * request is a question of its own, answered the same on every poll. Stateless.
 */
final class PullRefs {

    /**
     * The pull-request head refs, in order of precedence when one repository shows the same number
     * under several: the embedded forge's own spelling first, since its metadata file and the
     * merge queue ({@link dev.knotless.forge.MergeQueue#headRef}) name that ref, so the commit checked is the commit
     * the lander would land; then GitHub's and Gitea's, then GitLab's (both at once means a mirror of
     * two forges: the choice only has to be the same every poll).
     */
    static final List<String> PREFIXES = List.of("refs/pulls/", "refs/pull/", "refs/merge-requests/");
    private static final Pattern PULL_REF = Pattern.compile("(refs/(?:pulls|pull|merge-requests)/)([1-9][0-9]{0,8})/head");

    private PullRefs() {}

    /** Whether the embedded forge reports {@code ref}: a branch, or a pull request's head in any spelling. */
    static boolean watched(String ref) {
        return ref.startsWith("refs/heads/") || PULL_REF.matcher(ref).matches();
    }

    /**
     * Each pull request number's head ref among {@code refs}: where a number shows under several
     * spellings, the first of {@link #PREFIXES}; the others are not reported while it stands.
     * In number order.
     */
    static Map<Integer, String> heads(Iterable<String> refs) {
        Map<Integer, String> heads = new TreeMap<>();
        for (String ref : refs) {
            Matcher pull = PULL_REF.matcher(ref);
            if (pull.matches()) {
                heads.merge(Integer.parseInt(pull.group(2)), ref, (a, b) -> rank(a) <= rank(b) ? a : b);
            }
        }
        return heads;
    }

    private static int rank(String ref) {
        for (int i = 0; i < PREFIXES.size(); i++) {
            if (ref.startsWith(PREFIXES.get(i))) {
                return i;
            }
        }
        throw new IllegalArgumentException("not a pull request ref: " + ref);
    }
}
