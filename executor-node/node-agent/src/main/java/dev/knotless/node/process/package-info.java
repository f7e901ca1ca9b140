@NullMarked
package dev.knotless.node.process;

import org.jspecify.annotations.NullMarked;
