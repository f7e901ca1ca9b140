@NullMarked
package dev.knotless.executor.node.agent;

import org.jspecify.annotations.NullMarked;
