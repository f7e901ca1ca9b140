@NullMarked
package dev.knotless.node.allocation;

import org.jspecify.annotations.NullMarked;
