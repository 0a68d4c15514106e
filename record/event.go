package record

import "fmt"

// The two event types Kubernetes knows (corev1.EventTypeNormal and
// corev1.EventTypeWarning).
const (
	Normal  = "Normal"
	Warning = "Warning"
)

// Event is one Kubernetes Event as a controller records it.
type Event struct {
	// Type is Normal or Warning.
	Type string `json:"type"`
	// Reason is the short, CamelCase cause (FailedCreate, SuccessfulDelete).
	Reason string `json:"reason"`
	// Message is the human-readable text.
	Message string `json:"message"`
}

// Normalf is a Normal event with a formatted message.
func Normalf(reason, format string, args ...any) Event {
	return Event{Type: Normal, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Warningf is a Warning event with a formatted message.
func Warningf(reason, format string, args ...any) Event {
	return Event{Type: Warning, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// String is the event as client-go's FakeRecorder writes it:
// "<type> <reason> <message>".
func (e Event) String() string {
	return e.Type + " " + e.Reason + " " + e.Message
}
