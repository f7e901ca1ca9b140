@NullMarked
package dev.knotless.executor.node.service;

import org.jspecify.annotations.NullMarked;
