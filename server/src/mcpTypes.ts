// MCP's shapes (protocol 2025-11-25) that the public API names: tool results, elicitation and
// sampling. Written out here so the published declarations compile without the MCP SDK installed;
// they accept what the SDK's types of the same names hold. Fields the spec may add pass as unknown.

export type Meta = Record<string, unknown>;

export interface Annotations {
    audience?: ('user' | 'assistant')[];
    priority?: number;
    lastModified?: string;
}

export interface TextContent {
    type: 'text';
    text: string;
    annotations?: Annotations;
    _meta?: Meta;
}

export interface ImageContent {
    type: 'image';
    /** Base64. */
    data: string;
    mimeType: string;
    annotations?: Annotations;
    _meta?: Meta;
}

export interface AudioContent {
    type: 'audio';
    /** Base64. */
    data: string;
    mimeType: string;
    annotations?: Annotations;
    _meta?: Meta;
}

export interface ResourceLink {
    type: 'resource_link';
    uri: string;
    name: string;
    title?: string;
    description?: string;
    mimeType?: string;
    size?: number;
    annotations?: Annotations;
    _meta?: Meta;
}

export interface EmbeddedResource {
    type: 'resource';
    resource: { uri: string; mimeType?: string; _meta?: Meta } & ({ text: string } | { blob: string });
    annotations?: Annotations;
    _meta?: Meta;
}

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface CallToolResult {
    content: ContentBlock[];
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
    _meta?: Meta;
    [key: string]: unknown;
}

export interface ToolAnnotations {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
}

/** One field of a form: a string (optionally an enum), number, integer or boolean, with JSON Schema's keywords. */
export interface PrimitiveSchema {
    type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
    title?: string;
    description?: string;
    default?: string | number | boolean | string[];
    [keyword: string]: unknown;
}

export interface ElicitRequestFormParams {
    mode?: 'form';
    message: string;
    requestedSchema: {
        $schema?: string;
        type: 'object';
        properties: Record<string, PrimitiveSchema>;
        required?: string[];
    };
    _meta?: Meta;
}

export interface ElicitResult {
    action: 'accept' | 'decline' | 'cancel';
    content?: Record<string, string | number | boolean | string[]>;
    _meta?: Meta;
    [key: string]: unknown;
}

export type SamplingContent = TextContent | ImageContent | AudioContent;

export interface SamplingMessage {
    role: 'user' | 'assistant';
    content: SamplingContent | SamplingContent[];
    _meta?: Meta;
}

export interface CreateMessageRequestParams {
    messages: SamplingMessage[];
    maxTokens: number;
    systemPrompt?: string;
    modelPreferences?: {
        hints?: { name?: string }[];
        costPriority?: number;
        speedPriority?: number;
        intelligencePriority?: number;
    };
    includeContext?: 'none' | 'thisServer' | 'allServers';
    temperature?: number;
    stopSequences?: string[];
    metadata?: Record<string, unknown>;
    _meta?: Meta;
    [key: string]: unknown;
}

export interface CreateMessageResult {
    model: string;
    role: 'user' | 'assistant';
    content: SamplingContent | SamplingContent[];
    stopReason?: string;
    _meta?: Meta;
    [key: string]: unknown;
}
