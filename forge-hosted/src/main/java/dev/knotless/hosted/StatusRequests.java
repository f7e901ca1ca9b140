package dev.knotless.hosted;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * Each forge's commit-status request:
 *
 * <ul>
 *   <li>GitHub: {@code POST {api}/repos/{owner}/{repo}/statuses/{sha}}, {@code Authorization: Bearer TOKEN};
 *   <li>Gitea, Forgejo: {@code POST {api}/api/v1/repos/{owner}/{repo}/statuses/{sha}}, {@code Authorization: token TOKEN};
 *   <li>GitLab: {@code POST {api}/api/v4/projects/{url-encoded path}/statuses/{sha}}, {@code PRIVATE-TOKEN: TOKEN},
 *       {@code name} for the others' {@code context}.
 * </ul>
 */
final class StatusRequests {

    private static final MediaType JSON_TYPE = MediaType.get("application/json; charset=utf-8");
    private static final ObjectMapper JSON = new ObjectMapper();

    private StatusRequests() {}

    static Request of(StatusTarget target, CommitStatus status) {
        StatusTokens.Account a = target.account();
        HttpUrl base = HttpUrl.get(a.base());
        HttpUrl.Builder url = base.newBuilder();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("state", status.state());
        if (status.targetUrl() != null) {
            body.put("target_url", status.targetUrl());
        }
        body.put("description", status.description());
        Request.Builder request = new Request.Builder();
        switch (a.kind()) {
            case GITHUB -> {
                url.addPathSegment("repos").addPathSegments(target.project());
                body.put("context", status.context());
                request.header("Authorization", "Bearer " + a.token())
                        .header("Accept", "application/vnd.github+json").header("X-GitHub-Api-Version", "2022-11-28");
            }
            case GITEA -> {
                url.addPathSegments("api/v1/repos").addPathSegments(target.project());
                body.put("context", status.context());
                request.header("Authorization", "token " + a.token());
            }
            case GITLAB -> {
                url.addPathSegments("api/v4/projects").addPathSegment(target.project()); // one segment: its slashes become %2F
                body.put("name", status.context());
                request.header("PRIVATE-TOKEN", a.token());
            }
        }
        url.addPathSegment("statuses").addPathSegment(status.sha());
        try {
            return request.url(url.build()).header("User-Agent", "knotless-run").post(RequestBody.create(JSON.writeValueAsBytes(body), JSON_TYPE))
                    .build();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
