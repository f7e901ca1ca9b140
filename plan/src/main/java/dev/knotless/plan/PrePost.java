package dev.knotless.plan;

import java.util.List;

/**
 * Steps that run before and after a workflow's own: GitHub Actions' {@code pre} and {@code post}
 * steps of the actions a job uses ({@code actions/cache} restores before and saves after;
 * {@code actions/checkout}'s post step removes the credentials it stored). Ours has none ({@link
 * #NONE}): what a run does around its steps (caches, artifacts, reports) is the runner's own.
 *
 * @param pre run before the first of the workflow's steps, in this order
 * @param post run after the last, in this order (a front-end puts them in the order they run,
 *     GitHub's being the reverse of its actions'); each with its own condition, usually {@link
 *     StepCondition#ALWAYS}
 */
public record PrePost(List<Step> pre, List<Step> post) {

    /** Ours: nothing before or after the steps. */
    public static final PrePost NONE = new PrePost(List.of(), List.of());

    public PrePost {
        pre = List.copyOf(pre);
        post = List.copyOf(post);
    }

    public boolean isEmpty() {
        return pre.isEmpty() && post.isEmpty();
    }
}
