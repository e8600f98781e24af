package openai

import (
	"context"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"studio/internal/ai"
)

func chatMessage(m ai.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case ai.RoleSystem:
		return sdk.SystemMessage(m.Text), nil
	case ai.RoleUser:
		if len(m.Images) == 0 {
			return sdk.UserMessage(m.Text), nil
		}
		parts, err := userParts(m.Text, m.Images, nil)
		if err != nil {
			return sdk.ChatCompletionMessageParamUnion{}, err
		}
		return sdk.UserMessage(parts), nil
	case ai.RoleAssistant:
		msg := sdk.AssistantMessage(m.Text)
		for _, tc := range m.ToolCalls {
			msg.OfAssistant.ToolCalls = append(msg.OfAssistant.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: string(tc.Arguments)},
				},
			})
		}
		return msg, nil
	case ai.RoleTool:
		return sdk.ToolMessage(m.Text, m.ToolCallID), nil
	}
	return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("ai: message role %q", m.Role)
}

// Chat sends the conversation and returns the model's turn. A tool call
// naming no tool, or with arguments outside its tool's schema, is asked
// again once, then AI_BAD_OUTPUT.
func (c *Client) Chat(ctx context.Context, messages []ai.Message, tools []ai.Tool) (ai.Reply, ai.Usage, error) {
	start := c.now()
	var u ai.Usage
	if !c.Configured() {
		return ai.Reply{}, u, ai.ErrNotConfigured
	}
	schemas := map[string]*schema{}
	params := sdk.ChatCompletionNewParams{Model: shared.ChatModel(c.cfg.Model)}
	for _, t := range tools {
		if !schemaName.MatchString(t.Name) {
			return ai.Reply{}, u, fmt.Errorf("ai: tool name %q", t.Name)
		}
		sc, err := compileSchema(t.Parameters)
		if err != nil {
			return ai.Reply{}, u, fmt.Errorf("ai: tool %s: %w", t.Name, err)
		}
		schemas[t.Name] = sc
		def := shared.FunctionDefinitionParam{Name: t.Name, Strict: sdk.Bool(true), Parameters: sc.wire}
		if t.Description != "" {
			def.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(def))
	}
	for _, m := range messages {
		p, err := chatMessage(m)
		if err != nil {
			return ai.Reply{}, u, err
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
			return ai.Reply{}, u, failure(err)
		}
		answered(&u, res.Model, res.Usage.PromptTokens, res.Usage.CompletionTokens, res.Usage.TotalTokens, statedCost(res.Usage.JSON.ExtraFields))
		reply, err := readReply(res, schemas)
		if err == nil {
			u.Latency = c.now().Sub(start)
			return reply, u, nil
		}
		miss = err
		params.Messages = append(params.Messages,
			sdk.AssistantMessage(reply.Text),
			sdk.UserMessage("That turn cannot be used: "+err.Error()+". Answer again."))
	}
	u.Latency = c.now().Sub(start)
	return ai.Reply{}, u, wrapBadOutput(miss)
}

// readReply types the first choice, checking each tool call against its
// tool's schema.
func readReply(res *sdk.ChatCompletion, schemas map[string]*schema) (ai.Reply, error) {
	if len(res.Choices) == 0 {
		return ai.Reply{}, fmt.Errorf("the answer has no choices")
	}
	msg := res.Choices[0].Message
	reply := ai.Reply{Text: msg.Content}
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
		reply.ToolCalls = append(reply.ToolCalls, ai.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	if reply.Text == "" && len(reply.ToolCalls) == 0 {
		return reply, fmt.Errorf("the turn is empty")
	}
	return reply, nil
}
