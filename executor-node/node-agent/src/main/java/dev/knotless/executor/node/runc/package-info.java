@NullMarked
package dev.knotless.executor.node.runc;

import org.jspecify.annotations.NullMarked;
