"""Tools of the ``customer_service`` environment; each enforces the shop's hard rules."""

from __future__ import annotations

import re
from typing import Any

from reliability_lab.envs._base import Tool, ToolError

__all__ = ["CANCEL_REASONS", "REFUND_METHODS", "TOOLS", "TRANSFER_TOPICS"]

State = dict[str, dict[str, dict[str, Any]]]
CANCEL_REASONS = ("no longer needed", "ordered by mistake")
REFUND_METHODS = ("original_payment", "store_credit")
TRANSFER_TOPICS = ("cancel_shipped_order", "refund_not_delivered", "modify_shipped_order", "other")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")


def _user(state: State, user_id: str) -> dict[str, Any]:
    if user_id not in state["users"]:
        raise ToolError(f"Error: user {user_id!r} not found.")
    return state["users"][user_id]


def _order(state: State, order_id: str) -> dict[str, Any]:
    if order_id not in state["orders"]:
        raise ToolError(f"Error: order {order_id!r} not found.")
    return state["orders"][order_id]


def _product(state: State, product_id: str) -> dict[str, Any]:
    if product_id not in state["products"]:
        raise ToolError(f"Error: product {product_id!r} not found.")
    return state["products"][product_id]


def _require_status(order: dict[str, Any], allowed: tuple[str, ...], action: str) -> None:
    if order["status"] not in allowed:
        raise ToolError(
            f"Error: cannot {action} order {order['order_id']} with status {order['status']!r}; "
            f"allowed only when {' or '.join(allowed)}."
        )


def find_user_by_email(state: State, email: str) -> dict[str, Any]:
    for user in state["users"].values():
        if user["email"].lower() == email.strip().lower():
            return {"user_id": user["user_id"], "name": user["name"]}
    raise ToolError(f"Error: no user with email {email!r}.")


def find_user_by_name(state: State, name: str) -> list[dict[str, Any]]:
    hits = [
        {"user_id": u["user_id"], "name": u["name"], "zip": u["address"]["zip"]}
        for u in state["users"].values()
        if u["name"].lower() == name.strip().lower()
    ]
    if not hits:
        raise ToolError(f"Error: no user named {name!r}.")
    return hits


def get_user(state: State, user_id: str) -> dict[str, Any]:
    user = dict(_user(state, user_id))
    user["order_ids"] = sorted(o for o, r in state["orders"].items() if r["user_id"] == user_id)
    return user


def list_orders(state: State, user_id: str) -> list[dict[str, Any]]:
    _user(state, user_id)
    return [
        {
            "order_id": o["order_id"],
            "status": o["status"],
            "total": o["total"],
            "placed_on": o["placed_on"],
            "items": [i["name"] for i in o["items"]],
        }
        for o in sorted(state["orders"].values(), key=lambda r: r["order_id"])
        if o["user_id"] == user_id
    ]


def get_order(state: State, order_id: str) -> dict[str, Any]:
    return _order(state, order_id)


def get_product(state: State, product_id: str) -> dict[str, Any]:
    return _product(state, product_id)


def search_products(state: State, query: str) -> list[dict[str, Any]]:
    words = query.lower().split()
    hits = [
        {
            "product_id": p["product_id"],
            "name": p["name"],
            "price": p["price"],
            "in_stock": p["stock"] > 0,
        }
        for p in state["products"].values()
        if words and all(w in p["name"].lower() for w in words)
    ]
    if not hits:
        raise ToolError(f"Error: no product matches {query!r}.")
    return hits


def cancel_order(state: State, order_id: str, reason: str) -> dict[str, Any]:
    order = _order(state, order_id)
    _require_status(order, ("pending", "processing"), "cancel")
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    for item in order["items"]:
        state["products"][item["product_id"]]["stock"] += item["quantity"]
    return {
        "order_id": order_id,
        "status": "cancelled",
        "refund_amount": order["total"],
        "refund_to": order["payment_method"],
    }


def refund_order(state: State, order_id: str, method: str) -> dict[str, Any]:
    order = _order(state, order_id)
    _require_status(order, ("delivered",), "refund")
    order["status"] = "refunded"
    order["refund_method"] = method
    user = state["users"][order["user_id"]]
    if method == "store_credit":
        user["store_credit"] = round(user["store_credit"] + order["total"], 2)
    return {
        "order_id": order_id,
        "status": "refunded",
        "refunded_amount": order["total"],
        "method": method,
        "store_credit_balance": user["store_credit"],
    }


def _address(street: str, city: str, zip: str) -> dict[str, str]:
    if not re.fullmatch(r"\d{5}", zip):
        raise ToolError(f"Error: zip must be 5 digits, got {zip!r}.")
    if not street.strip() or not city.strip():
        raise ToolError("Error: street and city must not be empty.")
    return {"street": street.strip(), "city": city.strip(), "zip": zip}


def modify_order_address(
    state: State, order_id: str, street: str, city: str, zip: str
) -> dict[str, Any]:
    order = _order(state, order_id)
    _require_status(order, ("pending", "processing"), "modify the address of")
    order["shipping_address"] = _address(street, city, zip)
    return {"order_id": order_id, "shipping_address": order["shipping_address"]}


def update_user_address(state: State, user_id: str, street: str, city: str, zip: str) -> Any:
    user = _user(state, user_id)
    user["address"] = _address(street, city, zip)
    return {"user_id": user_id, "address": user["address"]}


def update_email(state: State, user_id: str, new_email: str) -> dict[str, Any]:
    user = _user(state, user_id)
    if not _EMAIL.match(new_email):
        raise ToolError(f"Error: {new_email!r} is not a valid email address.")
    for other in state["users"].values():
        if other["email"].lower() == new_email.lower() and other["user_id"] != user_id:
            raise ToolError(f"Error: email {new_email!r} is already in use by another account.")
    user["email"] = new_email
    return {"user_id": user_id, "email": new_email}


def change_order_item(
    state: State, order_id: str, product_id: str, new_product_id: str
) -> dict[str, Any]:
    order = _order(state, order_id)
    _require_status(order, ("pending",), "change items of")
    new = _product(state, new_product_id)
    line = next((i for i in order["items"] if i["product_id"] == product_id), None)
    if line is None:
        raise ToolError(f"Error: order {order_id} has no item {product_id!r}.")
    if new["stock"] < line["quantity"]:
        raise ToolError(f"Error: {new['name']} is out of stock ({new['stock']} available).")
    state["products"][product_id]["stock"] += line["quantity"]
    new["stock"] -= line["quantity"]
    line.update(product_id=new_product_id, name=new["name"], unit_price=new["price"])
    order["total"] = round(sum(i["quantity"] * i["unit_price"] for i in order["items"]), 2)
    return {"order_id": order_id, "items": order["items"], "total": order["total"]}


def transfer_to_human(state: State, user_id: str, topic: str) -> dict[str, Any]:
    _user(state, user_id)
    ticket = f"TR{len(state['transfers']) + 1}"
    state["transfers"][ticket] = {"user_id": user_id, "topic": topic}
    return {"ticket": ticket, "status": "transferred"}


def _obj(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


_S: dict[str, Any] = {"type": "string"}
_ADDR = {"street": _S, "city": _S, "zip": {"type": "string", "description": "5 digits"}}

TOOLS: tuple[Tool, ...] = (
    Tool(
        "find_user_by_email",
        "Find a customer's user_id by email.",
        _obj(["email"], email=_S),
        find_user_by_email,
    ),
    Tool(
        "find_user_by_name",
        "Find customers by full name; returns user_id and zip of each.",
        _obj(["name"], name=_S),
        find_user_by_name,
    ),
    Tool(
        "get_user",
        "Get a customer's profile, store credit and order ids.",
        _obj(["user_id"], user_id=_S),
        get_user,
    ),
    Tool(
        "list_orders",
        "List a customer's orders with status, total and item names.",
        _obj(["user_id"], user_id=_S),
        list_orders,
    ),
    Tool("get_order", "Get full details of an order.", _obj(["order_id"], order_id=_S), get_order),
    Tool(
        "get_product",
        "Get a product's name, price and stock.",
        _obj(["product_id"], product_id=_S),
        get_product,
    ),
    Tool(
        "search_products",
        "Search products whose name contains all query words.",
        _obj(["query"], query=_S),
        search_products,
    ),
    Tool(
        "cancel_order",
        "Cancel a pending or processing order; refunds the original payment.",
        _obj(
            ["order_id", "reason"],
            order_id=_S,
            reason={"type": "string", "enum": list(CANCEL_REASONS)},
        ),
        cancel_order,
        writes=True,
    ),
    Tool(
        "refund_order",
        "Refund a delivered order to the original payment or store credit.",
        _obj(
            ["order_id", "method"],
            order_id=_S,
            method={"type": "string", "enum": list(REFUND_METHODS)},
        ),
        refund_order,
        writes=True,
    ),
    Tool(
        "modify_order_address",
        "Change the shipping address of a pending or processing order.",
        _obj(["order_id", "street", "city", "zip"], order_id=_S, **_ADDR),
        modify_order_address,
        writes=True,
    ),
    Tool(
        "update_user_address",
        "Change the address on a customer's profile.",
        _obj(["user_id", "street", "city", "zip"], user_id=_S, **_ADDR),
        update_user_address,
        writes=True,
    ),
    Tool(
        "update_email",
        "Change a customer's email address.",
        _obj(["user_id", "new_email"], user_id=_S, new_email=_S),
        update_email,
        writes=True,
    ),
    Tool(
        "change_order_item",
        "Replace one product of a pending order by another in-stock one.",
        _obj(
            ["order_id", "product_id", "new_product_id"],
            order_id=_S,
            product_id=_S,
            new_product_id=_S,
        ),
        change_order_item,
        writes=True,
    ),
    Tool(
        "transfer_to_human",
        "Hand the customer to a human agent when policy forbids the request.",
        _obj(
            ["user_id", "topic"],
            user_id=_S,
            topic={"type": "string", "enum": list(TRANSFER_TOPICS)},
        ),
        transfer_to_human,
        writes=True,
    ),
)
