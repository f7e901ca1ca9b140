/**
 * GitHub Actions' expression language, the {@code ${{ ... }}} of its workflows, with the
 * semantics of GitHub's runner: {@link dev.knotless.plan.expression.Expression} (parsed against a
 * {@link dev.knotless.plan.expression.Scope} of the contexts and host functions a field allows),
 * {@link dev.knotless.plan.expression.Value}, {@link dev.knotless.plan.expression.Evaluator},
 * text with expressions in it ({@link dev.knotless.plan.expression.Template}) and the rule of an
 * {@code if:} ({@link dev.knotless.plan.expression.Condition}).
 *
 * <p>Where the runner's behaviour is not written down in GitHub's documentation, it is taken from
 * the runner's own implementation (actions/runner, {@code src/Sdk/Expressions} and {@code
 * src/Sdk/DTExpressions2}) and from the cross-language test data GitHub keeps for its expression
 * implementations (actions/languageservices, {@code expressions/testdata}).
 *
 * <p>A leaf of the module: it names nothing of the plan, only the JDK, jspecify and Jackson's
 * streaming JSON, so any part of the plan can hold and check expressions.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.plan.expression;

import org.jspecify.annotations.NullMarked;
