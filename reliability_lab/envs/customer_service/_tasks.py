"""The 24 tasks of the ``customer_service`` environment, each with a scripted oracle.

Oracle arguments are filled from earlier tool results (``bind``), so the simulated model and the
test oracle must actually read what the tools return. Expected answers' facts are rendered from
those results too; tests check a sample of them against the database by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reliability_lab.envs._base import Oracle, OracleStep, Task

__all__ = ["TASKS"]


def _field(name: str) -> Callable[[Any], Any]:
    return lambda r: r[name]


def _order_with(item: str, *statuses: str) -> Callable[[Any], Any]:
    def pick(orders: list[dict[str, Any]]) -> str:
        for o in orders:
            if any(item in name for name in o["items"]) and (
                not statuses or o["status"] in statuses
            ):
                return str(o["order_id"])
        raise LookupError(f"no order with {item!r}")

    return pick


def _by_zip(zip_code: str) -> Callable[[Any], Any]:
    return lambda users: next(u["user_id"] for u in users if u["zip"] == zip_code)


def _product_named(name: str) -> Callable[[Any], Any]:
    return lambda hits: next(h["product_id"] for h in hits if h["name"] == name)


def _nth_pending(n: int) -> Callable[[Any], Any]:
    return lambda orders: [o["order_id"] for o in orders if o["status"] == "pending"][n]


_EMAIL_STEP = {"uid": _field("user_id")}


def _email(address: str) -> OracleStep:
    return OracleStep("find_user_by_email", {"email": address}, _EMAIL_STEP)


def _name(name: str, zip_code: str) -> OracleStep:
    return OracleStep("find_user_by_name", {"name": name}, {"uid": _by_zip(zip_code)})


def _orders(**bind: Callable[[Any], Any]) -> OracleStep:
    return OracleStep("list_orders", {"user_id": "{uid}"}, bind)


def _t(
    task_id: str,
    instruction: str,
    user: str,
    difficulty: int,
    *steps: OracleStep,
    answer: str,
    facts: tuple[str, ...] = (),
) -> Task:
    return Task(
        task_id,
        instruction,
        Oracle(tuple(steps), answer, facts),
        user_id=user or None,
        difficulty=difficulty,
    )


TASKS: tuple[Task, ...] = (
    _t(
        "cs_01",
        "Hi, what is the current status of my order O2003? My email is alice.chen@example.com.",
        "U1001",
        1,
        _email("alice.chen@example.com"),
        OracleStep("get_order", {"order_id": "O2003"}, {"status": _field("status")}),
        answer="Your order O2003 is currently {status}.",
        facts=("{status}",),
    ),
    _t(
        "cs_02",
        "I'm Bob Martinez (bob.martinez@example.com). What was the total of my order "
        "that includes the USB-C Hub?",
        "U1002",
        1,
        _email("bob.martinez@example.com"),
        _orders(oid=_order_with("USB-C Hub")),
        OracleStep("get_order", {"order_id": "{oid}"}, {"total": _field("total")}),
        answer="The total of order {oid} was ${total}.",
        facts=("{total}",),
    ),
    _t(
        "cs_03",
        "Please cancel my order O2001, I no longer need it. My email is alice.chen@example.com.",
        "U1001",
        2,
        _email("alice.chen@example.com"),
        OracleStep("get_order", {"order_id": "O2001"}),
        OracleStep(
            "cancel_order",
            {"order_id": "O2001", "reason": "no longer needed"},
            {"refund": _field("refund_amount")},
        ),
        answer="Order O2001 is cancelled; ${refund} will be refunded to your card.",
        facts=("O2001",),
    ),
    _t(
        "cs_04",
        "I'm David Kim, zip code 37062. Please cancel my pending order for the brass "
        "desk lamp, I ordered it by mistake.",
        "U1004",
        2,
        _name("David Kim", "37062"),
        _orders(oid=_order_with("Desk Lamp (brass)", "pending")),
        OracleStep("cancel_order", {"order_id": "{oid}", "reason": "ordered by mistake"}),
        answer="I cancelled order {oid} for the brass desk lamp.",
        facts=("{oid}",),
    ),
    _t(
        "cs_05",
        "Grace Liu here (grace.liu@example.com). My water bottle order arrived but I "
        "want to return it for store credit. What will my store credit balance be?",
        "U1007",
        2,
        _email("grace.liu@example.com"),
        _orders(oid=_order_with("Water Bottle", "delivered")),
        OracleStep(
            "refund_order",
            {"order_id": "{oid}", "method": "store_credit"},
            {"amount": _field("refunded_amount"), "balance": _field("store_credit_balance")},
        ),
        answer="Order {oid} was refunded (${amount}) as store credit; your balance is now "
        "${balance}.",
        facts=("{balance}",),
    ),
    _t(
        "cs_06",
        "Carol Okafor (carol.okafor@example.com): please refund my delivered wireless "
        "mouse order to my original payment method.",
        "U1003",
        2,
        _email("carol.okafor@example.com"),
        _orders(oid=_order_with("Wireless Mouse", "delivered")),
        OracleStep(
            "refund_order",
            {"order_id": "{oid}", "method": "original_payment"},
            {"amount": _field("refunded_amount")},
        ),
        answer="Order {oid} was refunded: ${amount} back to your original payment method.",
        facts=("{amount}",),
    ),
    _t(
        "cs_07",
        "Bob Martinez (bob.martinez@example.com) here. Please ship my pending order to "
        "200 Harbor Blvd, Riverton, 82502 instead.",
        "U1002",
        2,
        _email("bob.martinez@example.com"),
        _orders(oid=_nth_pending(0)),
        OracleStep(
            "modify_order_address",
            {"order_id": "{oid}", "street": "200 Harbor Blvd", "city": "Riverton", "zip": "82502"},
        ),
        answer="Order {oid} will now ship to 200 Harbor Blvd, Riverton, 82502.",
        facts=("{oid}",),
    ),
    _t(
        "cs_08",
        "Hi, I'm Farid Haddad, my current email is farid.haddad@example.com. Please "
        "change my email to farid.h@example.org.",
        "U1006",
        1,
        _email("farid.haddad@example.com"),
        OracleStep("update_email", {"user_id": "{uid}", "new_email": "farid.h@example.org"}),
        answer="Your email is now farid.h@example.org.",
        facts=("farid.h@example.org",),
    ),
    _t(
        "cs_09",
        "I'm Emma Rossi (emma.rossi@example.com). Please change my email to grace.liu@example.com.",
        "U1005",
        2,
        _email("emma.rossi@example.com"),
        OracleStep("get_user", {"user_id": "{uid}"}),
        answer="I can't change it: grace.liu@example.com is already in use by another account, "
        "so your email stays emma.rossi@example.com.",
    ),
    _t(
        "cs_10",
        "Alice Chen (alice.chen@example.com): please cancel order O2003, I don't need "
        "the bottles anymore.",
        "U1001",
        2,
        _email("alice.chen@example.com"),
        OracleStep("get_order", {"order_id": "O2003"}),
        OracleStep(
            "transfer_to_human",
            {"user_id": "{uid}", "topic": "cancel_shipped_order"},
            {"ticket": _field("ticket")},
        ),
        answer="Order O2003 has already shipped, so I can't cancel it; I transferred you to a "
        "human agent (ticket {ticket}).",
    ),
    _t(
        "cs_11",
        "David Kim (david.kim@example.com): in my pending order with the two black desk "
        "lamps, please switch them to the brass ones. What is the new total?",
        "U1004",
        3,
        _email("david.kim@example.com"),
        _orders(oid=_order_with("Desk Lamp (black)", "pending")),
        OracleStep(
            "search_products",
            {"query": "desk lamp"},
            {
                "old": _product_named("Desk Lamp (black)"),
                "new": _product_named("Desk Lamp (brass)"),
            },
        ),
        OracleStep(
            "change_order_item",
            {"order_id": "{oid}", "product_id": "{old}", "new_product_id": "{new}"},
            {"total": _field("total")},
        ),
        answer="Order {oid} now has brass desk lamps; the new total is ${total}.",
        facts=("{total}",),
    ),
    _t(
        "cs_12",
        "Is the white desk lamp in stock, and how much does it cost?",
        "",
        1,
        OracleStep(
            "search_products", {"query": "desk lamp"}, {"pid": _product_named("Desk Lamp (white)")}
        ),
        OracleStep("get_product", {"product_id": "{pid}"}, {"price": _field("price")}),
        answer="The white desk lamp costs ${price} but is currently out of stock.",
        facts=("{price}", "out of stock"),
    ),
    _t(
        "cs_13",
        "I'm David Kim (david.kim@example.com). Please cancel all my pending orders, I "
        "no longer need them.",
        "U1004",
        3,
        _email("david.kim@example.com"),
        _orders(first=_nth_pending(0), second=_nth_pending(1)),
        OracleStep("cancel_order", {"order_id": "{first}", "reason": "no longer needed"}),
        OracleStep("cancel_order", {"order_id": "{second}", "reason": "no longer needed"}),
        answer="I cancelled orders {first} and {second}.",
        facts=("{first}", "{second}"),
    ),
    _t(
        "cs_14",
        "Grace Liu (grace.liu@example.com): I moved to 77 Lake Shore Dr, Madison, 53706. "
        "Please update my account address and the address of my order that hasn't shipped "
        "yet.",
        "U1007",
        3,
        _email("grace.liu@example.com"),
        OracleStep(
            "update_user_address",
            {"user_id": "{uid}", "street": "77 Lake Shore Dr", "city": "Madison", "zip": "53706"},
        ),
        _orders(oid=_order_with("", "pending", "processing")),
        OracleStep(
            "modify_order_address",
            {"order_id": "{oid}", "street": "77 Lake Shore Dr", "city": "Madison", "zip": "53706"},
        ),
        answer="Your address is updated and order {oid} will ship to 77 Lake Shore Dr, Madison, "
        "53706.",
        facts=("{oid}",),
    ),
    _t(
        "cs_15",
        "What's my store credit balance? I'm David Kim, david.kim@example.com.",
        "U1004",
        1,
        _email("david.kim@example.com"),
        OracleStep("get_user", {"user_id": "{uid}"}, {"credit": _field("store_credit")}),
        answer="Your store credit balance is ${credit}.",
        facts=("{credit}",),
    ),
    _t(
        "cs_16",
        "I'm Alice Chen from New York (zip 10013). What is the status of my office chair order?",
        "U1008",
        2,
        _name("Alice Chen", "10013"),
        _orders(oid=_order_with("Office Chair")),
        OracleStep("get_order", {"order_id": "{oid}"}, {"status": _field("status")}),
        answer="Your office chair order {oid} is {status}.",
        facts=("{status}",),
    ),
    _t(
        "cs_17",
        "Emma Rossi (emma.rossi@example.com): I want a refund for my USB-C hub order.",
        "U1005",
        2,
        _email("emma.rossi@example.com"),
        _orders(oid=_order_with("USB-C Hub")),
        OracleStep("transfer_to_human", {"user_id": "{uid}", "topic": "refund_not_delivered"}),
        answer="Order {oid} has not been delivered yet, so I can't refund it; I transferred you "
        "to a human agent.",
    ),
    _t(
        "cs_18",
        "Carol Okafor (carol.okafor@example.com): how many orders have I placed, and "
        "what is their combined total?",
        "U1003",
        2,
        _email("carol.okafor@example.com"),
        _orders(count=len, total=lambda os: round(sum(o["total"] for o in os), 2)),
        answer="You have placed {count} orders with a combined total of ${total}.",
        facts=("{count}", "{total}"),
    ),
    _t(
        "cs_19",
        "I'm Carol Okafor (carol.okafor@example.com). Please cancel the office chair I "
        "ordered, it was a mistake.",
        "U1003",
        2,
        _email("carol.okafor@example.com"),
        _orders(oid=_order_with("Office Chair")),
        OracleStep("cancel_order", {"order_id": "{oid}", "reason": "ordered by mistake"}),
        answer="Order {oid} with the office chair is cancelled.",
        facts=("{oid}",),
    ),
    _t(
        "cs_20",
        "Bob Martinez (bob.martinez@example.com): in my pending order, please swap the "
        "water bottle for a monitor stand.",
        "U1002",
        2,
        _email("bob.martinez@example.com"),
        _orders(oid=_nth_pending(0)),
        OracleStep("search_products", {"query": "monitor stand"}),
        answer="Sorry, the monitor stand is out of stock, so order {oid} stays unchanged.",
        facts=("out of stock",),
    ),
    _t(
        "cs_21",
        "Hi, Alice Chen here, zip 62701. My headphones arrived but I want to return "
        "them; please refund to my original payment method.",
        "U1001",
        2,
        _name("Alice Chen", "62701"),
        _orders(oid=_order_with("Headphones", "delivered")),
        OracleStep(
            "refund_order",
            {"order_id": "{oid}", "method": "original_payment"},
            {"amount": _field("refunded_amount")},
        ),
        answer="Order {oid} is refunded: ${amount} to your original payment method.",
        facts=("{amount}",),
    ),
    _t(
        "cs_22",
        "Farid Haddad (farid.haddad@example.com): in order O2013, please replace the "
        "mechanical keyboard with the noise-cancelling headphones. What is the new total?",
        "U1006",
        3,
        _email("farid.haddad@example.com"),
        OracleStep("get_order", {"order_id": "O2013"}),
        OracleStep(
            "search_products",
            {"query": "headphones"},
            {"new": _product_named("Noise-Cancelling Headphones")},
        ),
        OracleStep(
            "change_order_item",
            {"order_id": "O2013", "product_id": "P305", "new_product_id": "{new}"},
            {"total": _field("total")},
        ),
        answer="Order O2013 now contains the headphones; the new total is ${total}.",
        facts=("{total}",),
    ),
    _t(
        "cs_23",
        "What email address do you have on file for me? I'm Grace Liu, zip 53703.",
        "U1007",
        1,
        _name("Grace Liu", "53703"),
        OracleStep("get_user", {"user_id": "{uid}"}, {"email": _field("email")}),
        answer="The email on file is {email}.",
        facts=("{email}",),
    ),
    _t(
        "cs_24",
        "Emma Rossi (emma.rossi@example.com): please change the shipping address of my "
        "USB-C hub order to 3 Mill Rd, Georgetown, 78628.",
        "U1005",
        2,
        _email("emma.rossi@example.com"),
        _orders(oid=_order_with("USB-C Hub")),
        OracleStep("transfer_to_human", {"user_id": "{uid}", "topic": "modify_shipped_order"}),
        answer="Order {oid} has already shipped, so its address can't be changed; I transferred "
        "you to a human agent.",
    ),
)
