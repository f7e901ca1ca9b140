package dev.knotless.plan.github;

import dev.knotless.plan.Computed;
import dev.knotless.plan.JobCondition;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.expression.Condition;
import dev.knotless.plan.expression.Expression;
import dev.knotless.plan.expression.ExpressionException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree.Kind;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.util.Set;

/**
 * A job's {@code if}, read as a step's is ({@link ReadTime#condition}) over what a job's condition
 * may read, the status functions answering for the jobs it needs. One the file decides false still
 * makes the job's runs, which end {@code skipped}: the check says so, as GitHub's does.
 */
final class JobConditions {

    /** What a job's {@code if} may read, as on GitHub: the run's facts, the jobs it needs, the workflow's inputs. */
    static final Set<String> READABLE = Set.of("github", "needs", "inputs", "vars");

    private JobConditions() {}

    static JobCondition read(ReadTime values, Fields fields, Node node, String path) throws WorkflowException {
        if (node instanceof Scalar s && node.kind() != Kind.BOOLEAN) {
            try {
                Expression e = Condition.parse(s.text(), ReadTime.SCOPE).expression();
                if (ContextRules.hashesFiles(e)) {
                    throw fields.error(node.at(), path, "calls hashFiles(), which reads the run's files, and a job's 'if' is"
                            + " decided before it has any");
                }
                for (String context : e.contexts()) {
                    if (!READABLE.contains(context)) {
                        throw fields.error(node.at(), path, "reads '" + context + "', which a job's 'if' cannot read (GitHub"
                                + " evaluates it before the job has a runner: 'github', 'needs', 'inputs' and 'vars' only)");
                    }
                }
            } catch (ExpressionException e) {
                throw fields.error(node.at(), path, e.getMessage());
            }
        }
        ReadTime.When when = values.condition(node, path);
        // the empty text is false, as a condition reads it
        return when == null ? new JobCondition(StepCondition.SUCCESS, new Computed.Text(""))
                : new JobCondition(when.gate(), when.also());
    }
}
