package dev.knotless.hosted;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.forge.Repository;
import dev.knotless.tar.Printable;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Optional;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Asks a hosted forge's API whether a pull request a webhook called trusted is, where a status
 * token is configured for its repository ({@code --status-token-file}): a hook is signed, but its
 * body is what its sender chose to say, and the forge's own answer is not. The API's pull request
 * is judged by the webhook's rules ({@link HookPayloads#trusted}). No token for the repository:
 * nothing to ask ({@link Answer.NotAsked}); an answer that cannot be had or read counts as untrusted.
 */
public final class PullConfirmation {

    /** What the forge said of a pull request. */
    public sealed interface Answer {
        /** No status token covers the repository: the hook's word stands. */
        record NotAsked() implements Answer {}

        /** The forge's API says it is trusted. */
        record Trusted() implements Answer {}

        /** The forge's API says it is not, or could not be asked: {@code why}, one line. */
        record Untrusted(String why) implements Answer {}
    }

    static final int MAX_BODY = 1 << 20;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Asks nothing: where no status token file is given. Declared after what its constructor reads. */
    public static final PullConfirmation NONE = new PullConfirmation(StatusTokens.NONE, new OkHttpClient());

    private final StatusTokens tokens;
    private final OkHttpClient http;

    public PullConfirmation(StatusTokens tokens, OkHttpClient http) {
        this.tokens = tokens;
        this.http = http.newBuilder().callTimeout(TIMEOUT).followRedirects(false).build();
    }

    /** What the forge hosting {@code repo} says of its pull request {@code number}. */
    public Answer ask(Repository repo, int number) {
        Optional<StatusTarget> target = tokens.target(repo);
        if (target.isEmpty()) {
            return new Answer.NotAsked();
        }
        StatusTokens.Account a = target.get().account();
        try (Response response = http.newCall(request(target.get(), number)).execute()) {
            if (response.code() != 200) {
                return new Answer.Untrusted(a.kind().wireName() + " answered HTTP " + response.code() + " for pull request " + number);
            }
            JsonNode pull;
            try (InputStream in = response.body().byteStream()) {
                byte[] body = in.readNBytes(MAX_BODY + 1);
                if (body.length > MAX_BODY) {
                    return new Answer.Untrusted(a.kind().wireName() + "'s answer is over " + MAX_BODY + " bytes");
                }
                pull = JSON.readTree(body);
            }
            return HookPayloads.trusted(a.kind(), pull) ? new Answer.Trusted()
                    : new Answer.Untrusted(a.kind().wireName() + "'s API says pull request " + number + " is not trusted");
        } catch (IOException | RuntimeException e) {
            return new Answer.Untrusted("could not ask " + a.kind().wireName() + ": " + Printable.name(String.valueOf(e.getMessage())));
        }
    }

    private static Request request(StatusTarget target, int number) {
        StatusTokens.Account a = target.account();
        HttpUrl.Builder url = HttpUrl.get(a.base()).newBuilder();
        Request.Builder request = new Request.Builder().header("User-Agent", "knotless-run");
        switch (a.kind()) {
            case GITHUB -> {
                url.addPathSegment("repos").addPathSegments(target.project()).addPathSegment("pulls");
                request.header("Authorization", "Bearer " + a.token())
                        .header("Accept", "application/vnd.github+json").header("X-GitHub-Api-Version", "2022-11-28");
            }
            case GITEA -> {
                url.addPathSegments("api/v1/repos").addPathSegments(target.project()).addPathSegment("pulls");
                request.header("Authorization", "token " + a.token());
            }
            case GITLAB -> {
                url.addPathSegments("api/v4/projects").addPathSegment(target.project()).addPathSegment("merge_requests");
                request.header("PRIVATE-TOKEN", a.token());
            }
        }
        return request.url(url.addPathSegment(Integer.toString(number)).build()).get().build();
    }
}
