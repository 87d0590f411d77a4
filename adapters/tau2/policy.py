"""The airline policy rules tau2's tools do not enforce (tau2 ``airline/policy.md``).

tau2's airline tools accept several calls the policy forbids (changing a basic-economy flight,
cancelling outside the allowed cases, removing bags …). A shifted intent that relies on such a
call is not a legitimate goal, so its recipes are gated out before execution. Calls that appear
verbatim among the host's golden actions are vouched for by the benchmark and never gated.
"""

from __future__ import annotations

from typing import Any

NOW = "2024-05-15T15:00:00"  # policy.md: the current time is 2024-05-15 15:00 EST
CANCEL_WINDOW_START = "2024-05-14T15:00:00"  # booked within the last 24 hours
FLOWN = {"landed", "flying"}


def _segments_flown(res: dict[str, Any], flights: dict[str, Any]) -> list[dict[str, Any]]:
    flown = []
    for seg in res["flights"]:
        status = flights[seg["flight_number"]]["dates"].get(seg["date"], {}).get("status")
        if status in FLOWN or seg["date"] < NOW[:10]:
            flown.append(seg)
    return flown


def violations(tool: str, args: dict[str, Any], db: dict[str, Any]) -> list[str]:
    """Policy rules ``tool(**args)`` breaks against the (pristine) airline database."""
    out: list[str] = []
    flights = db["flights"]
    if tool == "book_reservation":
        sources = [pm["payment_id"].split("_")[0] for pm in args.get("payment_methods", [])]
        if sources.count("certificate") > 1 or sources.count("credit") > 1 or sources.count("gift") > 3:
            out.append("policy:payment_limits")
        if len(args.get("passengers", [])) > 5:
            out.append("policy:too_many_passengers")
        return out
    res = db["reservations"].get(args.get("reservation_id", ""))
    if res is None:
        return out  # the tool itself refuses an unknown reservation
    if tool == "update_reservation_flights":
        old = [(s["flight_number"], s["date"]) for s in res["flights"]]
        new = [(s["flight_number"], s["date"]) for s in args["flights"]]
        if new != old and res["cabin"] == "basic_economy":
            out.append("policy:basic_economy_flight_change")
        if new != old:
            first, last = flights[new[0][0]], flights[new[-1][0]]
            if first["origin"] != res["origin"]:
                out.append("policy:route_changed")
            elif res["flight_type"] == "one_way" and last["destination"] != res["destination"]:
                out.append("policy:route_changed")
            elif res["flight_type"] == "round_trip" and (
                last["destination"] != res["origin"]
                or res["destination"] not in {flights[n]["destination"] for n, _ in new}
            ):
                out.append("policy:route_changed")
        flown = {(s["flight_number"], s["date"]) for s in _segments_flown(res, flights)}
        if flown and (args["cabin"] != res["cabin"] or not flown <= set(new)):
            out.append("policy:segment_already_flown")
        if str(args.get("payment_id", "")).startswith("certificate_"):
            out.append("policy:change_paid_by_certificate")
    elif tool == "cancel_reservation":
        if _segments_flown(res, flights):
            out.append("policy:segment_already_flown")
        airline_cancelled = any(
            flights[s["flight_number"]]["dates"].get(s["date"], {}).get("status") == "cancelled"
            for s in res["flights"]
        )
        if not (
            res["created_at"] >= CANCEL_WINDOW_START
            or res["cabin"] == "business"
            or res.get("insurance") == "yes"
            or airline_cancelled
        ):
            out.append("policy:cancellation_not_allowed")
    elif tool == "update_reservation_baggages":
        if args["total_baggages"] < res["total_baggages"]:
            out.append("policy:bags_removed")
    return out
