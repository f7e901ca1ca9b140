package dev.knotless.hosted;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads a verified webhook's body as hostile input all the same (a forge's secret can leak, a
 * forge can have bugs): a bounded tree (depth, numbers, strings), then only the fields the daemon
 * uses, each taken only when it is text of a sane length without control characters; everything
 * else in the payload (commits, authors, messages) is never looked at.
 */
final class HookPayloads {

    private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
    private static final int MAX_TEXT = 2048;
    /** The largest pull request number the forge's refs are read for (nine digits). */
    static final long MAX_PULL = 999_999_999;
    private static final Pattern BRANCH = Pattern.compile("[A-Za-z0-9._/+-]{1,255}");
    /** GitHub, Gitea and GitLab user names; GitHub's apps as {@code name[bot]}. */
    private static final Pattern LOGIN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\\[bot\\])?");
    private static final java.util.Set<String> TRUSTED_ASSOCIATIONS = java.util.Set.of("OWNER", "MEMBER", "COLLABORATOR");
    private static final ObjectMapper JSON = JsonMapper.builder(com.fasterxml.jackson.core.JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(64).maxNumberLength(64).maxStringLength(1 << 20).build())
                    .build())
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS.mappedFeature())
            .build();

    private HookPayloads() {}

    /** The event {@code kind}'s event header names ({@code eventHeader}, null when absent) in {@code body}. */
    static HookEvent parse(ForgeKind kind, @Nullable String eventHeader, byte[] body) {
        if (eventHeader == null || eventHeader.isBlank()) {
            return new HookEvent.Malformed("no event header");
        }
        String event = eventHeader.strip();
        if (kind == ForgeKind.GITHUB && event.equals("ping")) {
            return new HookEvent.Ping(); // its body is the hook's settings; nothing in it is needed
        }
        String kindOfEvent = switch (kind) {
            case GITHUB, GITEA -> switch (event) {
                case "push" -> "push";
                // Gitea sends some updates as pull_request_sync and the like under their own names.
                case String e when e.equals("pull_request") || e.startsWith("pull_request_") -> "pull";
                default -> "";
            };
            case GITLAB -> switch (event) {
                case "Push Hook" -> "push";
                case "Merge Request Hook" -> "pull";
                default -> "";
            };
        };
        if (kindOfEvent.isEmpty()) {
            return new HookEvent.Ignored(event.length() > 64 || event.chars().anyMatch(Character::isISOControl)
                    ? "(unnamed)" : event);
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException | RuntimeException e) {
            return new HookEvent.Malformed("the body is not JSON");
        }
        if (root == null || !root.isObject()) {
            return new HookEvent.Malformed("the body is not a JSON object");
        }
        List<String> urls = kind == ForgeKind.GITLAB
                ? urls(root.path("project"), "git_http_url", "git_ssh_url", "web_url")
                : urls(root.path("repository"), "clone_url", "ssh_url", "html_url");
        if (urls.isEmpty()) {
            return new HookEvent.Malformed("the body names no repository URL");
        }
        if (kindOfEvent.equals("push")) {
            String commit = sha(text(root, "checkout_sha"));
            return new HookEvent.Push(urls, text(root, "ref"), commit != null ? commit : sha(text(root, "after")));
        }
        if (kind == ForgeKind.GITLAB) {
            JsonNode mr = root.path("object_attributes");
            long number = pullNumber(mr.path("iid"));
            return new HookEvent.PullRequest(urls, number, text(mr, "source_branch"),
                    sha(text(mr.path("last_commit"), "id")), number == 0 ? NO_NUMBER : gitlabFacts(root, mr));
        }
        JsonNode pr = root.path("pull_request");
        long number = pullNumber(root.path("number"));
        number = number > 0 ? number : pullNumber(pr.path("number"));
        return new HookEvent.PullRequest(urls, number, text(pr.path("head"), "ref"), sha(text(pr.path("head"), "sha")),
                number == 0 ? NO_NUMBER : kind == ForgeKind.GITHUB ? githubFacts(pr) : giteaFacts(pr));
    }

    private static final HookEvent.PullFacts NO_NUMBER =
            new HookEvent.PullFacts.Unusable("no pull request number from 1 to " + MAX_PULL);

    /*
     * Trust, mapped conservatively (docs/guide/forges.md has the table): a head in the target
     * repository means its author could push there, and those pushes already run as trusted pushes;
     * anything else, or anything missing or unreadable, is untrusted.
     */

    /**
     * Whether a pull request as a forge's API returns it ({@code GET} of the pull or merge request)
     * is trusted, by the same rules as its webhook's: GitHub's and Gitea's API give the object the
     * hook carries as {@code pull_request}; GitLab's the merge request, with the project ids.
     */
    static boolean trusted(ForgeKind kind, JsonNode pull) {
        return switch (kind) {
            case GITHUB -> githubFacts(pull) instanceof HookEvent.PullFacts.Known k && k.trusted();
            case GITEA -> giteaFacts(pull) instanceof HookEvent.PullFacts.Known k && k.trusted();
            case GITLAB -> {
                long source = id(pull.path("source_project_id"));
                yield source != 0 && source == id(pull.path("target_project_id"));
            }
        };
    }

    /** GitHub: not a fork (same full_name) and the author an OWNER, MEMBER or COLLABORATOR. */
    private static HookEvent.PullFacts githubFacts(JsonNode pr) {
        String target = text(pr.path("base"), "ref");
        String author = text(pr.path("user"), "login");
        String head = text(pr.path("head").path("repo"), "full_name"); // null: the fork was deleted
        String base = text(pr.path("base").path("repo"), "full_name");
        boolean fork = head == null || base == null || !head.equals(base);
        boolean member = TRUSTED_ASSOCIATIONS.contains(String.valueOf(text(pr, "author_association")));
        return facts(target, author, fork, !fork && member);
    }

    /**
     * Gitea, Forgejo: not a fork (same {@code repo_id}), and the head a branch: an AGit pull request
     * (pushed to {@code refs/for/…} by anyone who may read) shows the target repository as its head
     * and a {@code refs/pull/N/head} ref, so a head ref that is not a plain branch name is not trusted.
     */
    private static HookEvent.PullFacts giteaFacts(JsonNode pr) {
        String target = text(pr.path("base"), "ref");
        String author = text(pr.path("user"), "login");
        long head = id(pr.path("head").path("repo_id"));
        long base = id(pr.path("base").path("repo_id"));
        boolean fork = head == 0 || head != base;
        String headRef = text(pr.path("head"), "ref");
        return facts(target, author, fork, !fork && headRef != null && branch(headRef));
    }

    /**
     * GitLab: not a fork (same project id). {@code user} is who acted, not always the author: it
     * is taken as the author only when its id is the merge request's {@code author_id}.
     */
    private static HookEvent.PullFacts gitlabFacts(JsonNode root, JsonNode mr) {
        long source = id(mr.path("source_project_id"));
        long target = id(mr.path("target_project_id"));
        boolean fork = source == 0 || source != target;
        long actor = id(root.path("user").path("id"));
        String author = actor != 0 && actor == id(mr.path("author_id")) ? text(root.path("user"), "username") : null;
        return facts(text(mr, "target_branch"), author, fork, !fork);
    }

    private static HookEvent.PullFacts facts(@Nullable String target, @Nullable String author, boolean fork, boolean trusted) {
        if (target == null || !branch(target)) {
            return new HookEvent.PullFacts.Unusable("its target is not a branch name");
        }
        if (author != null && !LOGIN.matcher(author).matches()) {
            return new HookEvent.PullFacts.Unusable("its author is not a user name");
        }
        return new HookEvent.PullFacts.Known(target, author, fork, trusted);
    }

    /** A branch name as a ref's tail: git's rules, narrowed to what a runner's records and logs can hold. */
    static boolean branch(String name) {
        return BRANCH.matcher(name).matches() && !name.startsWith("-") && !name.startsWith("refs/")
                && !name.contains("..") && !name.contains("//") && !name.contains("/.") && !name.contains("@{")
                && !name.endsWith("/") && !name.endsWith(".") && !name.endsWith(".lock") && !name.startsWith(".");
    }

    private static List<String> urls(JsonNode repo, String... fields) {
        List<String> out = new ArrayList<>();
        for (String field : fields) {
            String url = text(repo, field);
            if (url != null) {
                out.add(url);
            }
        }
        return List.copyOf(out);
    }

    private static @Nullable String text(JsonNode parent, String field) {
        JsonNode value = parent.get(field);
        if (value == null || !value.isTextual()) {
            return null;
        }
        String text = value.asText();
        return text.isBlank() || text.length() > MAX_TEXT || text.chars().anyMatch(Character::isISOControl) ? null : text;
    }

    private static @Nullable String sha(@Nullable String text) {
        return text != null && SHA.matcher(text).matches() ? text : null;
    }

    /** A pull request number a ref can hold ({@code refs/pull/N/head}: 1 to {@link #MAX_PULL}), else 0. */
    private static long pullNumber(JsonNode node) {
        long n = id(node);
        return n <= MAX_PULL ? n : 0;
    }

    /** A positive integer, else 0. */
    private static long id(JsonNode node) {
        return node.isIntegralNumber() && node.canConvertToLong() && node.asLong() > 0 ? node.asLong() : 0;
    }
}
