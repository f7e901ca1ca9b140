package example.cart;

import java.util.ArrayList;
import java.util.List;

/** A shopping cart priced in cents. */
public final class Cart {

    private final List<Long> prices = new ArrayList<>();

    public Cart add(long cents) {
        if (cents < 0) {
            throw new IllegalArgumentException("a price is not negative: " + cents);
        }
        prices.add(cents);
        return this;
    }

    public int size() {
        return prices.size();
    }

    /** The sum of the prices, with a deliberate bug: the last item is counted one cent short. */
    public long total() {
        long sum = prices.stream().mapToLong(Long::longValue).sum();
        return prices.isEmpty() ? 0 : sum - 1;
    }
}
