package example.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Against the PostgreSQL server DATABASE_URL names (the workflow's service). */
class OrdersTest {

    private Connection connection;
    private Orders orders;

    @BeforeEach
    void connect() throws Exception {
        String url = System.getenv("DATABASE_URL");
        if (url == null) {
            throw new IllegalStateException("DATABASE_URL is not set: these tests need a PostgreSQL server");
        }
        connection = DriverManager.getConnection(url, "postgres", "");
        connection.setAutoCommit(false);
        orders = new Orders(connection);
        orders.create();
    }

    @AfterEach
    void rollBack() throws Exception {
        connection.rollback();
        connection.close();
    }

    @Test
    void totalsWhatACustomerOrdered() throws Exception {
        orders.place("ada", 250);
        orders.place("ada", 125);
        orders.place("bob", 999);
        assertEquals(375, orders.total("ada"));
    }

    @Test
    void aCustomerWithoutOrdersHasNoTotal() throws Exception {
        assertEquals(0, orders.total("nobody"));
    }

    @Test
    void runsOnTheJavaTheJobAskedFor() {
        String wanted = System.getenv("EXPECTED_JAVA");
        assertEquals(wanted, Integer.toString(Runtime.version().feature()), "the JDK setup-java put on JAVA_HOME");
    }
}
