// The shapes of the request settings the package passes through as given (the API checks
// them): the ones each official SDK's request type has that no rule here reads — Anthropic's
// container, diagnostics and speed, OpenAI's moderation, cache and search options, Gemini's
// speech, transcription, translation, routing and output formats — and Gemini's enumerations,
// which @google/genai declares as TS `enum`s and which are written here as the strings they are.
// Each is the SDK's type for its field (checked both ways by tests/sdk-types), `null` exactly
// where the SDK allows it.

export type AnthropicContainerSkill = {
  skill_id: string;
  /** built-in (`anthropic`) or user-uploaded (`custom`) skill */
  type: 'anthropic' | 'custom';
  /** a concrete version, or `latest` */
  version?: string;
};

export type AnthropicContainerParams = {
  id?: string | null;
  skills?: AnthropicContainerSkill[] | null;
};

export type AnthropicContainer = AnthropicContainerParams | string | null;

export type AnthropicDiagnostics = {
  /** `msg_…` id of this client's previous response; `null` = opt in on the first turn */
  previous_message_id?: string | null;
} | null;

export type OpenAiModerationMode = 'score' | 'block';

export type OpenAiModerationPolicy = {
  input?: { mode: OpenAiModerationMode } | null;
  output?: { mode: OpenAiModerationMode } | null;
};

export type OpenAiModerationSettings = {
  /** moderation model name, e.g. `omni-moderation-latest` */
  model: string;
  policy?: OpenAiModerationPolicy | null;
};

export type OpenAiChatModeration = OpenAiModerationSettings | null;

export type OpenAiChatPromptCacheOptions = {
  mode?: 'implicit' | 'explicit';
  ttl?: '30m';
};

export type OpenAiChatWebSearchOptions = {
  search_context_size?: 'low' | 'medium' | 'high';
  user_location?: {
    type: 'approximate';
    approximate: {
      city?: string;
      /** ISO 3166-1 two-letter code */
      country?: string;
      region?: string;
      /** IANA zone name */
      timezone?: string;
    };
  } | null;
};

export type OpenAiResponsesAccessPrograms = {
  cyber?: 'standard' | 'daybreak_blue' | 'daybreak_red';
};

export type OpenAiResponsesBackgroundOptions = {
  completion_window?: 'soonest' | '2h' | '8h';
  continuation_id?: string;
};

export type OpenAiResponsesImage = {
  context_compression?: 'auto' | 'enabled' | 'disabled';
};

export type OpenAiResponsesModeration = OpenAiModerationSettings | null;

export type OpenAiResponsesPromptCacheOptions = {
  comparison_response_id?: string | null;
  mode?: 'implicit' | 'explicit';
  prewarm?: boolean;
  ttl?: '30m' | '12h';
};

export type GeminiMediaResolution =
  | 'MEDIA_RESOLUTION_UNSPECIFIED'
  | 'MEDIA_RESOLUTION_LOW'
  | 'MEDIA_RESOLUTION_MEDIUM'
  | 'MEDIA_RESOLUTION_HIGH';

export type GeminiModality = 'MODALITY_UNSPECIFIED' | 'TEXT' | 'IMAGE' | 'AUDIO' | 'VIDEO';

export type GeminiFeatureSelectionPreference =
  | 'FEATURE_SELECTION_PREFERENCE_UNSPECIFIED'
  | 'PRIORITIZE_QUALITY'
  | 'BALANCED'
  | 'PRIORITIZE_COST';

export type GeminiAudioTranscriptionMode = 'MODE_UNSPECIFIED' | 'VERBATIM' | 'SMART';

export type GeminiDelivery = 'DELIVERY_UNSPECIFIED' | 'INLINE' | 'URI';

export type GeminiAspectRatio =
  | 'ASPECT_RATIO_UNSPECIFIED'
  | 'ASPECT_RATIO_ONE_BY_ONE'
  | 'ASPECT_RATIO_TWO_BY_THREE'
  | 'ASPECT_RATIO_THREE_BY_TWO'
  | 'ASPECT_RATIO_THREE_BY_FOUR'
  | 'ASPECT_RATIO_FOUR_BY_THREE'
  | 'ASPECT_RATIO_FOUR_BY_FIVE'
  | 'ASPECT_RATIO_FIVE_BY_FOUR'
  | 'ASPECT_RATIO_NINE_BY_SIXTEEN'
  | 'ASPECT_RATIO_SIXTEEN_BY_NINE'
  | 'ASPECT_RATIO_TWENTY_ONE_BY_NINE'
  | 'ASPECT_RATIO_ONE_BY_EIGHT'
  | 'ASPECT_RATIO_EIGHT_BY_ONE'
  | 'ASPECT_RATIO_ONE_BY_FOUR'
  | 'ASPECT_RATIO_FOUR_BY_ONE';

export type GeminiImageSize =
  | 'IMAGE_SIZE_UNSPECIFIED'
  | 'IMAGE_SIZE_FIVE_TWELVE'
  | 'IMAGE_SIZE_ONE_K'
  | 'IMAGE_SIZE_TWO_K'
  | 'IMAGE_SIZE_FOUR_K';

export type GeminiAudioTranscriptionConfig = {
  /** BCP-47 hints; omitted/empty = auto-detect */
  languageCodes?: string[];
  /** deprecated; an empty object in the SDK */
  languageAuto?: {};
  /** deprecated */
  languageHints?: { languageCodes?: string[] };
  customVocabulary?: string[];
  /** deprecated */
  adaptationPhrases?: string[];
  wordTimestamp?: boolean;
  diarization?: boolean;
  mode?: GeminiAudioTranscriptionMode;
  /** text to be rewritten by voice instructions (SMART mode) */
  sourceText?: string;
};

export type GeminiModelSelectionConfig = {
  featureSelectionPreference?: GeminiFeatureSelectionPreference;
};

export type GeminiAudioResponseFormat = {
  bitRate?: number;
  delivery?: GeminiDelivery;
  mimeType?: string;
  sampleRate?: number;
};

export type GeminiImageResponseFormat = {
  aspectRatio?: GeminiAspectRatio;
  delivery?: GeminiDelivery;
  imageSize?: GeminiImageSize;
  mimeType?: string;
};

export type GeminiTextResponseFormat = {
  mimeType?: string;
  /** `unknown` in the SDK (a JSON Schema) — can only be mirrored as `unknown` */
  schema?: unknown;
};

export type GeminiVideoResponseFormat = {
  aspectRatio?: GeminiAspectRatio;
  delivery?: GeminiDelivery;
  duration?: string;
  gcsUri?: string;
  /** e.g. 360p, 720p, 1080p, 4k (plain string in the SDK) */
  resolution?: string;
};

export type GeminiResponseFormatEntry = {
  audio?: GeminiAudioResponseFormat;
  image?: GeminiImageResponseFormat;
  text?: GeminiTextResponseFormat;
  video?: GeminiVideoResponseFormat;
};

export type GeminiResponseFormat = GeminiResponseFormatEntry[];

export type GeminiRoutingConfig = {
  autoMode?: { modelRoutingPreference?: 'UNKNOWN' | 'PRIORITIZE_QUALITY' | 'BALANCED' | 'PRIORITIZE_COST' };
  manualMode?: { modelName?: string };
};

export type GeminiVoiceConfig = {
  /** voice cloned from a sample */
  replicatedVoiceConfig?: {
    mimeType?: string;
    /** base64 */
    voiceSampleAudio?: string;
    /** base64 */
    consentAudio?: string;
    voiceConsentSignature?: { signature?: string };
  };
  prebuiltVoiceConfig?: { voiceName?: string };
  voice?: string;
};

export type GeminiSpeechConfig = {
  voiceConfig?: GeminiVoiceConfig;
  /** ISO 639-1 */
  languageCode?: string;
  /** exclusive with voiceConfig */
  multiSpeakerVoiceConfig?: {
    speakerVoiceConfigs?: Array<{ speaker?: string; voiceConfig?: GeminiVoiceConfig }>;
  };
};

export type GeminiTranslationConfig = {
  echoTargetLanguage?: boolean;
  /** BCP-47 */
  targetLanguageCode?: string;
};

export type GeminiRetrievalConfig = {
  languageCode?: string;
  latLng?: { latitude?: number; longitude?: number };
};

/** What an OpenAI Responses request may ask to `include` in its answer. */
export type OpenAiResponsesIncludable =
  | 'file_search_call.results'
  | 'web_search_call.results'
  | 'web_search_call.action.sources'
  | 'message.input_image.image_url'
  | 'computer_call_output.output.image_url'
  | 'code_interpreter_call.outputs'
  | 'reasoning.encrypted_content'
  | 'message.output_text.logprobs';

// Named by the Rust declarations (`#[shape(declared = "…")]`) where their Rust type holds any
// JSON: the generated shapes (providers.d.ts) use these names.

/** Any object: a JSON Schema, or an allowed tool, as the SDKs type them. */
export type AnyObject = { [key: string]: unknown };

/** Gemini's `responseJsonSchema`: a JSON Schema, any value to the SDK. */
export type GeminiResponseJsonSchema = unknown;

/** A tool's JSON Schema as Anthropic takes it: an object schema. */
export type AnthropicInputSchema = ToolSchema & { type: 'object' };

/** A predicted output: a string, or text parts. */
export type OpenAiChatPredictionContent = string | { type: 'text'; text: string }[];

/** A hosted tool by type, or an MCP server's tool. */
export type OpenAiResponsesHostedToolChoice =
  | { type: "file_search" | "web_search_preview" | "computer" | "computer_use_preview" | "computer_use" | "web_search_preview_2025_03_11" | "image_generation" | "code_interpreter" | "mcp" }
  | { type: "mcp"; server_label: string; name?: string | null }
  | { type: "apply_patch" }
  | { type: "shell" }
  | { type: "programmatic_tool_calling" };

/**
 * A message of a Responses request: one in (text and images), or the model's annotated text
 * back as the output message it came as.
 */
export type OpenAiResponsesMessage =
  | { type: "message"; role: OpenAiResponsesMessageRole; content: OpenAiResponsesMessageContent }
  | { type: "message"; id?: string; role: "assistant"; content: { type: "output_text"; text: string; annotations: OpenAiResponsesAnnotation[] }[]; status?: "completed" };
