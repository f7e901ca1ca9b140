package dev.knotless.http.forges;

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
            return new HookEvent.PullRequest(urls, number(mr.path("iid")), text(mr, "source_branch"),
                    sha(text(mr.path("last_commit"), "id")));
        }
        JsonNode pr = root.path("pull_request");
        long number = number(root.path("number"));
        return new HookEvent.PullRequest(urls, number > 0 ? number : number(pr.path("number")),
                text(pr.path("head"), "ref"), sha(text(pr.path("head"), "sha")));
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

    private static long number(JsonNode node) {
        return node.canConvertToLong() && node.isIntegralNumber() && node.asLong() > 0 ? node.asLong() : 0;
    }
}
