@NullMarked
package dev.knotless.node.channel;

import org.jspecify.annotations.NullMarked;
