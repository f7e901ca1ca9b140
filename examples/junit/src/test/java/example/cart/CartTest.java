package example.cart;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** One test passes, one fails (Cart.total's bug) and one is skipped: what the run's check reports. */
class CartTest {

    @Test
    void addsItems() {
        assertEquals(2, new Cart().add(250).add(125).size());
    }

    @Test
    void totalIsTheSumOfThePrices() {
        assertEquals(375, new Cart().add(250).add(125).total(), "total in cents of 250 + 125");
    }

    @Test
    @Disabled("discounts are not written yet")
    void appliesDiscounts() {
    }
}
