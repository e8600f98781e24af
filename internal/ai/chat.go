package ai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// Roles of a conversation's messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one turn of a conversation.
type Message struct {
	Role       string
	Text       string
	Images     [][]byte   // user turns only, sent as data URLs
	ToolCalls  []ToolCall // assistant turns that called tools
	ToolCallID string     // tool turns: the call this answers
}

// Tool is a function the model may call. Parameters is the JSON Schema of
// its arguments in the strict subset (see Request.Schema).
type Tool struct {
	Name        string
	Description string
	Parameters  any
}

// ToolCall is a call the model made; Arguments passed the tool's schema.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Decode unmarshals the arguments into out.
func (tc ToolCall) Decode(out any) error { return json.Unmarshal(tc.Arguments, out) }

// Reply is the model's turn: text, tool calls, or both.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
}

func chatMessage(m Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case RoleSystem:
		return openai.SystemMessage(m.Text), nil
	case RoleUser:
		if len(m.Images) == 0 {
			return openai.UserMessage(m.Text), nil
		}
		parts, err := userParts(m.Text, m.Images, nil)
		if err != nil {
			return openai.ChatCompletionMessageParamUnion{}, err
		}
		return openai.UserMessage(parts), nil
	case RoleAssistant:
		msg := openai.AssistantMessage(m.Text)
		for _, tc := range m.ToolCalls {
			msg.OfAssistant.ToolCalls = append(msg.OfAssistant.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: string(tc.Arguments)},
				},
			})
		}
		return msg, nil
	case RoleTool:
		return openai.ToolMessage(m.Text, m.ToolCallID), nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("ai: message role %q", m.Role)
}

// Chat sends the conversation and returns the model's turn. A tool call
// naming no tool, or with arguments outside its tool's schema, is asked
// again once, then AI_BAD_OUTPUT.
func (c *Client) Chat(ctx context.Context, messages []Message, tools []Tool) (Reply, Usage, error) {
	start := c.now()
	var u Usage
	if !c.Configured() {
		return Reply{}, u, ErrNotConfigured
	}
	schemas := map[string]*schema{}
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(c.cfg.Model)}
	for _, t := range tools {
		if !schemaName.MatchString(t.Name) {
			return Reply{}, u, fmt.Errorf("ai: tool name %q", t.Name)
		}
		sc, err := compileSchema(t.Parameters)
		if err != nil {
			return Reply{}, u, fmt.Errorf("ai: tool %s: %w", t.Name, err)
		}
		schemas[t.Name] = sc
		def := shared.FunctionDefinitionParam{Name: t.Name, Strict: openai.Bool(true), Parameters: sc.wire}
		if t.Description != "" {
			def.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(def))
	}
	for _, m := range messages {
		p, err := chatMessage(m)
		if err != nil {
			return Reply{}, u, err
		}
		params.Messages = append(params.Messages, p)
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()

	var miss error
	for attempt := 0; attempt < 2; attempt++ {
		res, err := c.chat.New(ctx, params)
		if err != nil {
			u.Latency = c.now().Sub(start)
			return Reply{}, u, failure(err)
		}
		u.add(res.Model, res.Usage.PromptTokens, res.Usage.CompletionTokens, res.Usage.TotalTokens, statedCost(res.Usage.JSON.ExtraFields))
		reply, err := readReply(res, schemas)
		if err == nil {
			u.Latency = c.now().Sub(start)
			return reply, u, nil
		}
		miss = err
		params.Messages = append(params.Messages,
			openai.AssistantMessage(reply.Text),
			openai.UserMessage("That turn cannot be used: "+err.Error()+". Answer again."))
	}
	u.Latency = c.now().Sub(start)
	return Reply{}, u, wrapBadOutput(miss)
}

// readReply types the first choice, checking each tool call against its
// tool's schema.
func readReply(res *openai.ChatCompletion, schemas map[string]*schema) (Reply, error) {
	if len(res.Choices) == 0 {
		return Reply{}, fmt.Errorf("the answer has no choices")
	}
	msg := res.Choices[0].Message
	reply := Reply{Text: msg.Content}
	if msg.Refusal != "" {
		return reply, fmt.Errorf("the model refused: %s", msg.Refusal)
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			return reply, fmt.Errorf("a %s tool call, not a function call", tc.Type)
		}
		sc, ok := schemas[tc.Function.Name]
		if !ok {
			return reply, fmt.Errorf("a call of %q, which is not a tool here", tc.Function.Name)
		}
		args, err := sc.check(tc.Function.Arguments)
		if err != nil {
			return reply, fmt.Errorf("the arguments of %s: %w", tc.Function.Name, err)
		}
		reply.ToolCalls = append(reply.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	if reply.Text == "" && len(reply.ToolCalls) == 0 {
		return reply, fmt.Errorf("the turn is empty")
	}
	return reply, nil
}
