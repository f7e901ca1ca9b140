package dev.knotless.runner.run.step.protocol;

import dev.knotless.checks.Annotation;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.runner.run.record.Masks;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one attempt at a step handed back that its result shows: its outputs, its annotations,
 * what went wrong with what it handed back (which fails it, as GitHub's runner fails a step whose
 * command or file it could not process), and the runner's own lines about it for the log. Filled
 * by the step's commands while it runs and by its files after it; made into its result last.
 *
 * <p>What the check shows is bounded: {@link #MOST_PER_KIND} annotations of each kind (GitHub's
 * runner's bound per step), each message at most {@link #MOST_MESSAGE} characters (GitHub's), and
 * at most {@link #MOST_SHOWN_OUTPUTS} outputs, each value cut at {@link #MOST_SHOWN_VALUE}
 * characters; all of it masked with every value masked by the time the step ended. Later steps
 * read the whole, unmasked outputs ({@link HandedBack}).
 *
 * <p>Concurrency: thread-safe; commands arrive on the step's output thread.
 */
public final class StepReport {

    public static final int MOST_PER_KIND = 10;
    public static final int MOST_MESSAGE = 4096;
    public static final int MOST_SHOWN_OUTPUTS = 100;
    public static final int MOST_SHOWN_VALUE = 4096;
    /** The runner's own lines about one step: a step that repeats a refused command gets a count after these. */
    static final int MOST_NOTICES = 50;

    private final Map<String, String> outputs = new LinkedHashMap<>();
    private final List<Annotation> annotations = new ArrayList<>();
    private final Map<Annotation.Kind, Integer> counted = new EnumMap<>(Annotation.Kind.class);
    private final List<String> notices = new ArrayList<>();
    private int unsaid;
    private @Nullable String failure;

    /** An output of the step; a later one of the same name wins. */
    public synchronized void output(String name, String value) {
        outputs.put(name, value);
    }

    /** An annotation, kept while its kind has room: the rest are counted in a notice. */
    public synchronized void annotate(Annotation annotation) {
        int n = counted.merge(annotation.kind(), 1, Integer::sum);
        if (n <= MOST_PER_KIND) {
            annotations.add(annotation);
        }
    }

    /** A line of the runner's about the step, said in the log once the step's output is. */
    public synchronized void notice(String line) {
        if (notices.size() < MOST_NOTICES) {
            notices.add(line);
        } else {
            unsaid++;
        }
    }

    /**
     * The step fails for {@code why} (the first reason is its reason), as an error annotation as
     * well, as GitHub's runner shows it.
     */
    public synchronized void fail(String why) {
        annotate(Annotation.of(Annotation.Kind.ERROR, why));
        notice(why);
        if (failure == null) {
            failure = why;
        }
    }

    public synchronized @Nullable String failure() {
        return failure;
    }

    /** The runner's lines about the step, in order, and one for annotations past their bound. */
    public synchronized List<String> notices() {
        List<String> all = new ArrayList<>(notices);
        if (unsaid > 0) {
            all.add(unsaid + " more lines about this step were not said");
        }
        counted.forEach((kind, n) -> {
            if (n > MOST_PER_KIND) {
                all.add((n - MOST_PER_KIND) + " more " + kind.wireName() + " annotations than the " + MOST_PER_KIND
                        + " a step shows");
            }
        });
        return all;
    }

    /**
     * {@code result} with what the step handed back, masked by {@code masks}; a step whose result
     * passed but whose handing back went wrong fails, and goes on when it may continue on error.
     */
    public synchronized StepResult applyTo(StepResult result, boolean continueOnError, Masks masks) {
        Map<String, String> shown = new LinkedHashMap<>();
        // masked before it is cut, so that a cut never leaves the first half of a value showing
        outputs.entrySet().stream().limit(MOST_SHOWN_OUTPUTS).forEach(e -> shown.put(masks.mask(e.getKey()),
                cut(masks.mask(e.getValue()), MOST_SHOWN_VALUE)));
        List<Annotation> masked = annotations.stream().map(a -> a.withText(cut(masks.mask(a.message()), MOST_MESSAGE),
                a.file() == null ? null : masks.mask(a.file()), a.title() == null ? null : masks.mask(a.title()))).toList();
        StepResult handed = result.withHandedBack(shown, masked);
        if (failure == null || result.status() != StepStatus.SUCCESS) {
            return handed;
        }
        StepResult failed = handed.failedBy(masks.mask(failure));
        return continueOnError ? failed.asContinued() : failed;
    }

    /** {@code value} cut after {@code most} characters, never inside a surrogate pair. */
    static String cut(String value, int most) {
        if (value.length() <= most) {
            return value;
        }
        int end = Character.isHighSurrogate(value.charAt(most - 1)) ? most - 1 : most;
        return value.substring(0, end) + "…";
    }
}
