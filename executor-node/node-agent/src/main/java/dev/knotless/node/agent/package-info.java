@NullMarked
package dev.knotless.node.agent;

import org.jspecify.annotations.NullMarked;
