package dev.knotless.spindle.knot;

/**
 * Git's names for refs and branches in a pipeline event, checked before one is put in a ref, a
 * path or a log line: {@code git check-ref-format}'s rules, and the pipeline's own bounds
 * ({@link Pipeline#MAX_REF}, {@link Pipeline#MAX_BRANCH}). Each refusal is a {@link
 * PipelineException} naming the field ({@code where}) and quoting the name.
 */
final class RefNames {

    private RefNames() {
    }

    /** {@code ref}, a full ref ({@code refs/...}) as a push names it. */
    static String ref(String ref, String where) throws PipelineException {
        if (!ref.startsWith("refs/") || ref.length() > Pipeline.MAX_REF) {
            throw new PipelineException(where + " is refs/... of at most " + Pipeline.MAX_REF + " characters, not " + Text.quote(ref));
        }
        check(ref.substring("refs/".length()), ref, where);
        return ref;
    }

    /** {@code branch}, a branch's short name (not {@code refs/...}). */
    static String branch(String branch, String where) throws PipelineException {
        if (branch.isEmpty() || branch.length() > Pipeline.MAX_BRANCH || branch.startsWith("-") || branch.startsWith("refs/")) {
            throw new PipelineException(where + " is a branch name of 1 to " + Pipeline.MAX_BRANCH
                    + " characters (not starting - or refs/), not " + Text.quote(branch));
        }
        check(branch, branch, where);
        return branch;
    }

    /** Git's rules for a ref's name ({@code git check-ref-format}), over {@code name}; {@code shown} is what the message quotes. */
    private static void check(String name, String shown, String where) throws PipelineException {
        String why = null;
        if (name.isEmpty()) {
            why = "is empty";
        } else if (name.contains("..")) {
            why = "holds ..";
        } else if (name.contains("@{") || name.equals("@")) {
            why = "holds @{";
        } else if (name.contains("//") || name.startsWith("/") || name.endsWith("/")) {
            why = "has an empty part";
        } else if (name.endsWith(".") || name.endsWith(".lock") || name.contains(".lock/")
                || name.startsWith(".") || name.contains("/.")) {
            why = "has a part that starts with . or ends with . or .lock";
        } else {
            for (int i = 0; i < name.length() && why == null; i++) {
                char c = name.charAt(i);
                if (c < 0x20 || c == 0x7f || Character.isISOControl(c)) {
                    why = "holds a control character";
                } else if (" ~^:?*[\\".indexOf(c) >= 0) {
                    why = "holds '" + c + "'";
                }
            }
        }
        if (why != null) {
            throw new PipelineException(where + " " + why + ": " + Text.quote(shown));
        }
    }
}
