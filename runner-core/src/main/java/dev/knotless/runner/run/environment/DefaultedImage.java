package dev.knotless.runner.run.environment;

import dev.knotless.executor.Failure;
import dev.knotless.runner.run.request.RunRequest;

/**
 * The reason of an image that could not be had, when the run did not choose it: a workflow that
 * names no image gets the runner's default, and the operator who never wrote that name needs to
 * know where it came from and how to choose another. Decided here, where the image is chosen, so
 * it reads the same on every executor.
 */
final class DefaultedImage {

    private DefaultedImage() {}

    /** {@code failure}'s reason, told which image was defaulted and how to choose another when it was. */
    static String reason(RunRequest request, Failure failure) {
        if (failure.kind() != Failure.Kind.IMAGE || request.workflow().image() != null) {
            return failure.reason();
        }
        String image = request.image();
        String said = failure.reason();
        // Executors begin with the image's name; say it once.
        for (String prefix : new String[] {"image '" + image + "' ", "image \"" + image + "\" "}) {
            if (said.startsWith(prefix)) {
                said = said.substring(prefix.length());
                return named(image) + " " + said + advice();
            }
        }
        return named(image) + ": " + said + advice();
    }

    private static String named(String image) {
        return "image \"" + image + "\" (the default: the workflow names none)";
    }

    private static String advice() {
        return "; set image: in the workflow or --image";
    }
}
