package dev.knotless.plan.expression;

import dev.knotless.plan.expression.Expression.And;
import dev.knotless.plan.expression.Expression.Call;
import dev.knotless.plan.expression.Expression.Literal;
import dev.knotless.plan.expression.Value.StringValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An {@code if:}, read as the runner's workflow converter reads it. The text is an expression,
 * with or without <code>${{ }}</code> around it; blank, it is {@code success()}. An expression that
 * calls none of the status functions ({@code success}, {@code failure}, {@code always}, {@code
 * cancelled}, in any case) runs as {@code success() && (expression)}, so a step after a failure
 * is skipped unless its condition asks about status.
 *
 * <p>Quirks kept because workflows meet them on GitHub: text around the <code>${{ }}</code> makes
 * the whole a string ({@code if: ${{ a }} == 'b'} is {@code format('{0} == ''b''', a)}, never
 * empty, so true whenever {@code success()} is); and <code>${{ 'text' }}</code>, a lone string
 * literal, is replaced by its text, which is then read as the condition.
 *
 * @param expression what is evaluated, the {@code success() &&} included when it was added
 */
public record Condition(Expression expression) {

    private static final String WRAP = "success() && ()";

    public Condition {
        Objects.requireNonNull(expression, "expression");
    }

    /**
     * @param scope must declare {@code success}, which an {@code if:} may always call
     */
    public static Condition parse(String text, Scope scope) throws ExpressionException {
        HostFunction success = scope.function(HostFunction.SUCCESS.name());
        if (success == null) {
            throw new IllegalArgumentException("an if: scope declares the status functions, success() at least");
        }
        Expression parsed;
        long length;
        if (text.contains("${{")) {
            Template template = Template.parse(text, scope);
            parsed = template.expression();
            length = template.length();
            if (parsed instanceof Literal l && l.value() instanceof StringValue s && template.parts().size() == 1
                    && template.parts().get(0) instanceof Template.Embedded e) {
                if (Chars.trim(s.value()).isEmpty()) {
                    return new Condition(new Call(success.name(), List.of(), e.offset()));
                }
                try {
                    parsed = Expression.parse(s.value(), scope);
                } catch (ExpressionException inner) {
                    throw new ExpressionException(inner.problem() + " (in the condition the string literal holds)",
                            e.offset());
                }
                length = s.value().length();
            }
        } else if (Chars.trim(text).isEmpty()) {
            return new Condition(new Call(success.name(), List.of(), 0));
        } else {
            parsed = Expression.parse(text, scope);
            length = text.length();
        }
        for (String f : parsed.functions()) {
            if (HostFunction.isStatus(f)) {
                return new Condition(parsed);
            }
        }
        if (length + WRAP.length() > Parser.MAX_LENGTH) {
            throw new ExpressionException("the condition is " + (length + WRAP.length())
                    + " characters long as success() && (...); GitHub allows " + Parser.MAX_LENGTH, 0);
        }
        List<Expression> operands = new ArrayList<>();
        operands.add(new Call(success.name(), List.of(), parsed.offset()));
        if (parsed instanceof And a) {
            operands.addAll(a.operands());
        } else {
            operands.add(parsed);
        }
        int height = parsed instanceof And ? Parser.height(parsed) : Parser.height(parsed) + 1;
        if (height > Parser.MAX_DEPTH) {
            throw Parser.tooDeep(parsed.offset());
        }
        return new Condition(new And(operands, parsed.offset()));
    }

    public boolean evaluate(Evaluator evaluator) throws ExpressionException {
        return evaluator.evaluate(expression).isTruthy();
    }

    public boolean evaluate(Contexts contexts, Functions functions) throws ExpressionException {
        return evaluate(new Evaluator(contexts, functions));
    }

    @Override
    public String toString() {
        return expression.toString();
    }
}
