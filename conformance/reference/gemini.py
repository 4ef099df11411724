"""Reference codec for Gemini `generateContent` / `streamGenerateContent`.

Written as small overridable steps so that a bug reproduction can replace exactly the step the
buggy code got wrong, in a few lines.

Ids. A `functionCall` without an id decodes with `call_id` None and goes back without one: the
Developer API accepts made-up ids, but Vertex answered them with 400 `Unknown name "id"` for most
of 2025-2026, and nothing pairs better for them. An id Gemini issued goes back byte for byte on the
call and on its `functionResponse`.

Histories begun on another API. Their ids are not sent: Gemini did not issue them, and the
research found no source saying Gemini uses a foreign `functionCall.id` (Vertex rejected the
field outright until 2026-09, see cases/wire-types/gemini/FunctionCall.yaml). Their calls go as
id-less `functionCall` parts, and the results pair by what Gemini pairs id-less responses by:
name and order. So every turn's responses are put in the order of the calls they answer (which
the neutral ids still tell apart), one `functionResponse` per call, each with its call's name.
Calls another API ran itself (server tools) cannot be replayed to Gemini and are left out with
their results. No `thoughtSignature` is made up for them: the sentinel values adapters use for
foreign calls are not confirmed in Google's documentation (Gemini 3 may then refuse such a
history; the cross-provider scenarios use an earlier model).

Opaque fields. `thoughtSignature` is kept in the call's `extra` and written back on the same
part; with parallel calls only the first part has one, and no other part gets it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart, ToolResultPart
from conformance.reference.session import repaired

API = "gemini"
CALL = "gemini/FunctionCall"
RESPONSE = "gemini/FunctionResponse"
CODE = "gemini/ExecutableCode"
CODE_RESULT = "gemini/CodeExecutionResult"
SERVER_CALL = "gemini/ToolCall"
SERVER_RESPONSE = "gemini/ToolResponse"
CODE_EXECUTION = "code_execution"
SIGNATURE = "thoughtSignature"

SentCalls = list[tuple[ToolCallPart, str | None]]  # a model turn's client calls, each with the id it went out with
Paired = list[tuple[ToolResultPart, ToolCallPart | None, str | None]]  # a result, its call, the call's id sent


def native(part: ToolCallPart | ToolResultPart) -> bool:
    return str(part.get("wire_type", "")).startswith(f"{API}/")


def response_body(output: Any) -> Any:
    """A function's output as `functionResponse.response`, which must be a JSON object.

    JSON object text goes as that object; anything else under "output", the key the API
    reference names for a function's output.
    """
    if isinstance(output, dict):
        return output
    if isinstance(output, str):
        try:
            parsed = json.loads(output)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    return {"output": output}


def _get(part: dict[str, Any], camel: str, snake: str) -> Any:
    return part[camel] if camel in part else part.get(snake)


class GeminiCodec:
    # --- decode -------------------------------------------------------------------------
    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            return self.decode_stream(response["events"])
        return self.decode_parts(self.candidate_parts(response["body"]))

    def candidate_parts(self, body: Any) -> list[dict[str, Any]]:
        candidates = (body or {}).get("candidates") or []
        if not candidates:
            return []
        return list(((candidates[0] or {}).get("content") or {}).get("parts") or [])

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        """Every part of every chunk, in order: parts arrive whole, and no two chunks share one."""
        collected: dict[Any, dict[str, Any]] = {}
        for k, event in enumerate(events):
            for j, part in enumerate(self.candidate_parts(event.get("data"))):
                self.accumulate(collected, (k, j), part)
        return self.decode_parts(list(collected.values()))

    def accumulate(self, collected: dict[Any, dict[str, Any]], key: tuple[int, int], part: dict[str, Any]) -> None:
        collected[key] = part

    def decode_parts(self, parts: Iterable[dict[str, Any]]) -> Message:
        out: list[Part] = []
        for part in parts:
            for decoded in self.decode_part(part):
                last = out[-1] if out else None
                if decoded["type"] == "text" and last is not None and last["type"] == "text":
                    last["text"] += decoded["text"]  # streamed text arrives in pieces
                else:
                    out.append(decoded)
        return {"role": "assistant", "parts": out}

    def decode_part(self, part: dict[str, Any]) -> list[Part]:
        if _get(part, "functionCall", "function_call") is not None:
            return [self.decode_call(part)]
        code = _get(part, "executableCode", "executable_code")
        if code is not None:
            return [self.server_call(part, CODE, CODE_EXECUTION, {k: v for k, v in code.items() if k != "id"}, code)]
        tool = _get(part, "toolCall", "tool_call")
        if tool is not None:
            name = str(_get(tool, "toolType", "tool_type"))
            return [self.server_call(part, SERVER_CALL, name, tool.get("args", {}), tool)]
        result = _get(part, "codeExecutionResult", "code_execution_result")
        if result is not None:
            output = {k: v for k, v in result.items() if k != "id"}
            return [self.server_result(CODE_RESULT, CODE_EXECUTION, output, result)]
        response = _get(part, "toolResponse", "tool_response")
        if response is not None:
            name = str(_get(response, "toolType", "tool_type"))
            return [self.server_result(SERVER_RESPONSE, name, response.get("response"), response)]
        if isinstance(part.get("text"), str) and not part.get("thought"):
            return [{"type": "text", "text": part["text"]}]
        return []  # thought summaries: the model does not need them back

    def extra(self, part: dict[str, Any]) -> dict[str, Any]:
        signature = _get(part, SIGNATURE, "thought_signature")
        return {SIGNATURE: signature} if signature is not None else {}

    def decode_call(self, part: dict[str, Any]) -> ToolCallPart:
        call = _get(part, "functionCall", "function_call")
        decoded: ToolCallPart = {
            "type": "tool_call",
            "call_id": call.get("id") or None,
            "name": call["name"],
            "arguments": call.get("args") or {},
            "wire_type": CALL,
        }
        extra = self.extra(part)
        if extra:
            decoded["extra"] = extra
        return decoded

    def server_call(
        self, part: dict[str, Any], wire_type: str, name: str, arguments: Any, value: dict[str, Any]
    ) -> ToolCallPart:
        decoded: ToolCallPart = {
            "type": "tool_call",
            "call_id": value.get("id") or None,
            "name": name,
            "arguments": arguments,
            "wire_type": wire_type,
            "provider_executed": True,
        }
        extra = self.extra(part)
        if extra:
            decoded["extra"] = extra
        return decoded

    def server_result(self, wire_type: str, name: str, output: Any, value: dict[str, Any]) -> ToolResultPart:
        return {
            "type": "tool_result",
            "call_id": value.get("id") or None,
            "name": name,
            "output": output,
            "wire_type": wire_type,
            "provider_executed": True,
        }

    # --- encode -------------------------------------------------------------------------
    def repair(self, conversation: Conversation) -> Conversation:
        """A run cut off before a tool answered leaves a call without a result: give it one."""
        return repaired(conversation)

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        conversation = self.repair(conversation)
        contents: list[dict[str, Any]] = []
        system: list[str] = []
        calls: SentCalls = []  # the last model turn's client calls, id sent
        for message in conversation["messages"]:
            if message["role"] == "system":
                system.extend(p["text"] for p in message["parts"] if p["type"] == "text")
                continue
            if message["role"] == "assistant":
                content, calls = self.encode_model(message)
            elif message["role"] == "tool":
                content = self.encode_results([p for p in message["parts"] if p["type"] == "tool_result"], calls)
            else:
                content = {
                    "role": "user",
                    "parts": [{"text": p["text"]} for p in message["parts"] if p["type"] == "text"],
                }
            if content["parts"]:
                contents.append(content)
        body: dict[str, Any] = {"contents": contents}
        if system:
            body["systemInstruction"] = {"parts": [{"text": "\n".join(system)}]}
        if conversation["tools"]:
            body["tools"] = [
                {
                    "functionDeclarations": [
                        {
                            "name": tool["name"],
                            "description": tool.get("description", ""),
                            "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
                        }
                        for tool in conversation["tools"]
                    ]
                }
            ]
        return body

    def encode_model(self, message: Message) -> tuple[dict[str, Any], SentCalls]:
        parts: list[dict[str, Any]] = []
        calls: SentCalls = []
        for part in message["parts"]:
            if part["type"] == "text":
                if part["text"]:
                    parts.append({"text": part["text"]})
            elif part["type"] == "tool_call":
                if part.get("provider_executed"):
                    if native(part):
                        parts.append(self.encode_server_call(part))
                    continue  # another API's server tool: Gemini cannot replay it
                sent = self.call_id(part)
                parts.append(self.encode_call(part, sent))
                calls.append((part, sent))
            elif part.get("provider_executed") and native(part):
                parts.append(self.encode_server_result(part))
        return {"role": "model", "parts": parts}, calls

    def call_id(self, part: ToolCallPart) -> str | None:
        """The id Gemini issued, or none: ids from elsewhere and made-up ids never go out."""
        return part["call_id"] if native(part) and part["call_id"] else None

    def signature(self, part: ToolCallPart) -> Any:
        return (part.get("extra") or {}).get(SIGNATURE) if native(part) else None

    def encode_call(self, part: ToolCallPart, call_id: str | None) -> dict[str, Any]:
        call: dict[str, Any] = {"name": part["name"], "args": part["arguments"]}
        if call_id is not None:
            call["id"] = call_id
        encoded: dict[str, Any] = {"functionCall": call}
        signature = self.signature(part)
        if signature is not None:
            encoded[SIGNATURE] = signature
        return encoded

    def encode_server_call(self, part: ToolCallPart) -> dict[str, Any]:
        value: dict[str, Any]
        if part.get("wire_type") == CODE:
            value = dict(part["arguments"])
            key = "executableCode"
        else:
            value = {"toolType": part["name"], "args": part["arguments"]}
            key = "toolCall"
        if part["call_id"]:
            value["id"] = part["call_id"]
        encoded: dict[str, Any] = {key: value}
        signature = self.signature(part)
        if signature is not None:
            encoded[SIGNATURE] = signature
        return encoded

    def encode_server_result(self, part: ToolResultPart) -> dict[str, Any]:
        value: dict[str, Any]
        output = part["output"]
        if part.get("wire_type") == CODE_RESULT:
            # A history seeded from a scenario holds the output as text; a decoded one, as served.
            value = dict(output) if isinstance(output, dict) else {"outcome": "OUTCOME_OK", "output": output}
            key = "codeExecutionResult"
        else:
            value = {"toolType": part.get("name"), "response": response_body(output)}
            key = "toolResponse"
        if part["call_id"]:
            value["id"] = part["call_id"]
        return {key: value}

    def order_results(self, results: list[ToolResultPart], calls: SentCalls) -> Paired:
        """Each result with the call it answers, in call order: id-less responses pair by order."""
        taken: set[int] = set()
        matched: list[tuple[int, ToolResultPart, ToolCallPart | None, str | None]] = []
        for position, result in enumerate(results):
            index = self.match(result, calls, taken)
            if index is None:
                matched.append((len(calls) + position, result, None, None))
            else:
                taken.add(index)
                matched.append((index, result, *calls[index]))
        return [(result, call, sent) for _, result, call, sent in sorted(matched, key=lambda m: m[0])]

    def match(self, result: ToolResultPart, calls: SentCalls, taken: set[int]) -> int | None:
        """The call a result answers: the same neutral id, else the first unanswered one of its name."""
        free = [i for i in range(len(calls)) if i not in taken]
        if result["call_id"]:
            same = next((i for i in free if calls[i][0]["call_id"] == result["call_id"]), None)
            if same is not None:
                return same
        return next((i for i in free if calls[i][0]["name"] == result.get("name")), None)

    def encode_results(self, results: list[ToolResultPart], calls: SentCalls) -> dict[str, Any]:
        return {
            "role": "user",
            "parts": [self.encode_result(r, c, s) for r, c, s in self.order_results(results, calls)],
        }

    def result_id(self, part: ToolResultPart, sent: str | None) -> str | None:
        """The id the call went out with: the same on both sides, or on neither."""
        return sent

    def encode_result(self, part: ToolResultPart, call: ToolCallPart | None, sent: str | None) -> dict[str, Any]:
        name = part.get("name") or (call["name"] if call else "")
        response: dict[str, Any] = {"name": name, "response": response_body(part["output"])}
        result_id = self.result_id(part, sent)
        if result_id is not None:
            response["id"] = result_id
        return {"functionResponse": response}
