package dev.knotless.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * Matches branch names and file paths against a glob: {@code *} matches within one {@code
 * /}-separated segment, {@code **} across segments ({@code a/**}{@code /b} also matches {@code
 * a/b}), {@code ?} one character other than {@code /}; every other character matches itself.
 *
 * <p>Matching is by dynamic programming, linear in pattern times name: a workflow author (or a
 * pull request editing a workflow) cannot make it backtrack for long.
 */
public final class Glob {

    private Glob() {}

    private enum Op { LITERAL, ONE, SEGMENT, ANY, DIRECTORIES }

    private record Token(Op op, char c) {}

    public static boolean matches(String pattern, String name) {
        List<Token> tokens = compile(pattern);
        int n = name.length();
        // next[j]: do tokens[i+1..] match name[j..]? Filled from the last token backwards.
        boolean[] next = new boolean[n + 1];
        next[n] = true;
        for (int i = tokens.size() - 1; i >= 0; i--) {
            Token token = tokens.get(i);
            boolean[] here = new boolean[n + 1];
            switch (token.op()) {
                case LITERAL -> {
                    for (int j = 0; j < n; j++) {
                        here[j] = name.charAt(j) == token.c() && next[j + 1];
                    }
                }
                case ONE -> {
                    for (int j = 0; j < n; j++) {
                        here[j] = name.charAt(j) != '/' && next[j + 1];
                    }
                }
                case SEGMENT -> {
                    here[n] = next[n];
                    for (int j = n - 1; j >= 0; j--) {
                        here[j] = next[j] || name.charAt(j) != '/' && here[j + 1];
                    }
                }
                case ANY -> {
                    here[n] = next[n];
                    for (int j = n - 1; j >= 0; j--) {
                        here[j] = next[j] || here[j + 1];
                    }
                }
                case DIRECTORIES -> {
                    // Nothing, or anything that ends with '/'.
                    boolean later = false;
                    here[n] = next[n];
                    for (int j = n - 1; j >= 0; j--) {
                        later = later || name.charAt(j) == '/' && next[j + 1];
                        here[j] = next[j] || later;
                    }
                }
            }
            next = here;
        }
        return next[0];
    }

    private static List<Token> compile(String pattern) {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        while (i < pattern.length()) {
            char c = pattern.charAt(i);
            if (c == '*' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '*') {
                boolean segmentStart = i == 0 || pattern.charAt(i - 1) == '/';
                if (segmentStart && i + 2 < pattern.length() && pattern.charAt(i + 2) == '/') {
                    tokens.add(new Token(Op.DIRECTORIES, c));
                    i += 3;
                } else {
                    tokens.add(new Token(Op.ANY, c));
                    i += 2;
                }
            } else if (c == '*') {
                tokens.add(new Token(Op.SEGMENT, c));
                i++;
            } else if (c == '?') {
                tokens.add(new Token(Op.ONE, c));
                i++;
            } else {
                tokens.add(new Token(Op.LITERAL, c));
                i++;
            }
        }
        return tokens;
    }
}
