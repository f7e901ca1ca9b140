@NullMarked
package dev.knotless.executor.node;

import org.jspecify.annotations.NullMarked;
