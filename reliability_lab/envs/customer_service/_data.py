"""The in-memory database of the ``customer_service`` environment (fictional people and orders)."""

from __future__ import annotations

from typing import Any

__all__ = ["initial_database"]

_USERS = [
    # user_id, name, email, phone, street, city, zip, store_credit
    (
        "U1001",
        "Alice Chen",
        "alice.chen@example.com",
        "555-0101",
        "12 Oak St",
        "Springfield",
        "62701",
        0.0,
    ),
    (
        "U1002",
        "Bob Martinez",
        "bob.martinez@example.com",
        "555-0102",
        "48 Pine Ave",
        "Riverton",
        "82501",
        15.0,
    ),
    (
        "U1003",
        "Carol Okafor",
        "carol.okafor@example.com",
        "555-0103",
        "7 Birch Rd",
        "Lakewood",
        "80226",
        0.0,
    ),
    (
        "U1004",
        "David Kim",
        "david.kim@example.com",
        "555-0104",
        "301 Maple Dr",
        "Fairview",
        "37062",
        40.0,
    ),
    (
        "U1005",
        "Emma Rossi",
        "emma.rossi@example.com",
        "555-0105",
        "9 Cedar Ln",
        "Georgetown",
        "78626",
        0.0,
    ),
    (
        "U1006",
        "Farid Haddad",
        "farid.haddad@example.com",
        "555-0106",
        "55 Elm St",
        "Salem",
        "97301",
        0.0,
    ),
    (
        "U1007",
        "Grace Liu",
        "grace.liu@example.com",
        "555-0107",
        "820 Willow Way",
        "Madison",
        "53703",
        5.5,
    ),
    (
        "U1008",
        "Alice Chen",
        "alice.chen.nyc@example.com",
        "555-0108",
        "14 Hudson St",
        "New York",
        "10013",
        0.0,
    ),
]

_PRODUCTS = [
    # product_id, name, price, stock
    ("P301", "Desk Lamp (black)", 34.99, 12),
    ("P302", "Desk Lamp (white)", 34.99, 0),
    ("P303", "Desk Lamp (brass)", 39.99, 4),
    ("P304", "Wireless Mouse", 24.50, 30),
    ("P305", "Mechanical Keyboard", 89.00, 7),
    ("P306", "USB-C Hub", 45.00, 15),
    ("P307", "Office Chair", 189.00, 3),
    ("P308", "Monitor Stand", 59.95, 0),
    ("P309", "Noise-Cancelling Headphones", 129.99, 9),
    ("P310", "Water Bottle", 18.00, 50),
]

_ORDERS = [
    # order_id, user_id, [(product_id, quantity)], status, placed_on, payment_method
    ("O2001", "U1001", [("P301", 1), ("P304", 1)], "pending", "2024-05-02", "credit_card"),
    ("O2002", "U1001", [("P309", 1)], "delivered", "2024-03-15", "credit_card"),
    ("O2003", "U1001", [("P310", 2)], "shipped", "2024-05-01", "credit_card"),
    ("O2004", "U1002", [("P305", 1)], "delivered", "2024-04-10", "paypal"),
    ("O2005", "U1002", [("P306", 1), ("P310", 1)], "pending", "2024-05-03", "paypal"),
    ("O2006", "U1003", [("P307", 1)], "processing", "2024-04-28", "credit_card"),
    ("O2007", "U1003", [("P304", 2)], "delivered", "2024-02-20", "credit_card"),
    ("O2008", "U1004", [("P303", 1)], "pending", "2024-05-04", "credit_card"),
    ("O2009", "U1004", [("P301", 2)], "pending", "2024-05-05", "credit_card"),
    ("O2010", "U1004", [("P309", 1)], "cancelled", "2024-01-11", "credit_card"),
    ("O2011", "U1005", [("P308", 1)], "delivered", "2024-04-02", "paypal"),
    ("O2012", "U1005", [("P306", 2)], "shipped", "2024-04-30", "paypal"),
    ("O2013", "U1006", [("P305", 1), ("P304", 1)], "pending", "2024-05-06", "credit_card"),
    ("O2014", "U1007", [("P310", 3)], "delivered", "2024-03-30", "credit_card"),
    ("O2015", "U1007", [("P301", 1)], "processing", "2024-05-02", "credit_card"),
    ("O2016", "U1008", [("P307", 1)], "delivered", "2024-04-15", "credit_card"),
    ("O2017", "U1008", [("P304", 1)], "pending", "2024-05-06", "credit_card"),
    ("O2018", "U1002", [("P309", 1)], "refunded", "2024-02-01", "paypal"),
]


def initial_database() -> dict[str, dict[str, dict[str, Any]]]:
    """The starting state: ``{"users", "products", "orders", "transfers"}`` tables by id."""
    users: dict[str, dict[str, Any]] = {
        uid: {
            "user_id": uid,
            "name": name,
            "email": email,
            "phone": phone,
            "address": {"street": street, "city": city, "zip": zip_code},
            "store_credit": credit,
        }
        for uid, name, email, phone, street, city, zip_code, credit in _USERS
    }
    products: dict[str, dict[str, Any]] = {
        pid: {"product_id": pid, "name": name, "price": price, "stock": stock}
        for pid, name, price, stock in _PRODUCTS
    }
    orders: dict[str, dict[str, Any]] = {}
    for oid, uid, lines, status, placed_on, payment in _ORDERS:
        items: list[dict[str, Any]] = [
            {
                "product_id": pid,
                "name": products[pid]["name"],
                "quantity": qty,
                "unit_price": products[pid]["price"],
            }
            for pid, qty in lines
        ]
        orders[oid] = {
            "order_id": oid,
            "user_id": uid,
            "items": items,
            "total": round(sum(i["quantity"] * i["unit_price"] for i in items), 2),
            "status": status,
            "placed_on": placed_on,
            "payment_method": payment,
            "shipping_address": dict(users[uid]["address"]),
        }
    return {"users": users, "products": products, "orders": orders, "transfers": {}}
