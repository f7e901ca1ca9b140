package dev.knotless.runner.run.record;

import dev.knotless.executor.OutputSink;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.MaskingSink;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The values a run's log masks: the granted secrets from the start, and the values its steps ask
 * to have masked as they go ({@code ::add-mask::}). Added values are taken in at once and built
 * into one masker the next time the masker is asked for, so that a burst of them (a step that
 * masks each line of a file) costs one build per write of output, not one per value.
 *
 * <p>Concurrency: thread-safe; a step's output thread adds while notices are masked elsewhere.
 */
public final class Masks {

    private Masker masker;
    private final List<String> pending = new ArrayList<>();

    public Masks(Masker granted) {
        this.masker = granted;
    }

    /** The masker of every value so far. */
    public synchronized Masker masker() {
        if (!pending.isEmpty()) {
            masker = masker.with(pending);
            pending.clear();
        }
        return masker;
    }

    /** Masks {@code values} from the next time the masker is asked for on. */
    public synchronized void add(Collection<String> values) {
        pending.addAll(values);
    }

    /** {@code text} with every value so far masked. */
    public String mask(String text) {
        return masker().mask(text);
    }

    /**
     * A masking view of {@code downstream} that takes in the values added while it is open: see
     * {@link GrowingMaskSink}.
     */
    public MaskingSink newStream(OutputSink downstream) {
        return new GrowingMaskSink(this, downstream);
    }
}
