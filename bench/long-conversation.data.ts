/**
 * A long conversation over ten evenings, written for this project and kept fixed (no public
 * long-conversation dataset can be fetched here; this one is ours, under the project's licence).
 * Ada (the player) and Mira (the bot, who keeps a second-hand bookshop) catch up every week or two
 * from March to June. Topics come back across sessions in other words, so a question's words
 * rarely match the turn that answers it: that is the point.
 *
 * Each exchange is what Ada says, what Mira answers, and the keywords a turn's analysis would give
 * it (people, places, objects, times, and plainer words for what happened), written with the
 * exchange and before the questions. The questions come last, each with the exchanges holding its
 * answer (its evidence).
 */

export type Exchange = readonly [you: string, reply: string, keywords: string];

export interface Session {
  /** When the evening starts on the story's clock. */
  start: string;
  exchanges: readonly Exchange[];
}

export interface Question {
  ask: string;
  /**
   * Exchange ids ("s3e4": session 3, exchange 4, both from 1) whose memory answers it; a session id
   * alone ("s9") when any of that evening's exchanges does (a question about a time, not a topic).
   */
  evidence: readonly string[];
  kind: 'other words' | 'two things' | 'when';
}

export const SESSIONS: readonly Session[] = [
  {
    start: '2025-03-01T19:00:00',
    exchanges: [
      ["Mira! Sorry I'm late, the tram sat outside the station for twenty minutes.", "You're here now. Sit, the kettle has only just boiled.", 'tram, delay, commute, tea'],
      ["I have news, sort of. Tomás and I have been reading up on adoption agencies. Three of them, actually.", "That's enormous, Ada. How long have you two been thinking about it?", 'Tomás, adoption, agencies, family, children, research, looking into'],
      ['Since Christmas. The second agency wants a home visit before anything else.', 'A home visit. Then I suppose the spare room finally gets cleared out.', 'adoption, agency, home visit, social worker, spare room'],
      ['How is the shop? Is the damp in the back room any better?', 'Worse. The poetry shelf smells like a cellar. I moved it to the front window.', 'bookshop, damp, mould, poetry shelf, window, business'],
      ["You should make the landlord fix it. It's his wall.", "I've written to Mr. Okafor twice. He answers everything with a photo of his boat.", 'Mr. Okafor, landlord, repairs, complaint, letter, boat'],
      ['My hand is still sore from the climbing wall on Thursday.', 'You and that wall. One day you will come in with a cast.', 'climbing, bouldering, hand, injury, Thursday, sport'],
      ['What are you reading at the moment?', 'A fat Portuguese novel about a lighthouse keeper. Slow, but I love it.', 'book, novel, Portuguese, lighthouse keeper, reading'],
      ['My sister called. Lena is getting married in April, on a farm of all places.', 'Lena! Finally. Will you have to give a speech?', 'Lena, sister, wedding, marriage, April, farm, speech'],
      ["Probably. I'm terrible at speeches. I go red and forget my own name.", 'Write it down and read it. Nobody minds a paper in a shaking hand.', 'speech, nerves, public speaking, advice'],
      ["Biscuit ate one of Tomás's running shoes yesterday.", 'That dog has taste. Was it the expensive pair?', 'Biscuit, dog, running shoe, chewed, Tomás, pet'],
      ['The expensive pair. He laughed though, which surprised me.', 'He is softer than he looks, your Tomás.', 'Tomás, laughed, kind, husband'],
      ["I should go, early shift at the studio tomorrow.", 'Go. Tell me about the agencies next time.', 'studio, work, early shift, goodbye'],
    ],
  },
  {
    start: '2025-03-08T18:30:00',
    exchanges: [
      ['I brought you something. Cinnamon buns from the new bakery on Rua Alta.', 'You angel. They are still warm.', 'cinnamon buns, pastry, bakery, Rua Alta, gift, food'],
      ['Work was awful. The client rejected the whole facade design, after six weeks.', 'Six weeks of drawings, gone? What did they want instead?', 'work, architecture, client, facade, design, rejected, studio, job'],
      ['Glass. Everything glass. For a library in a hot country.', 'A greenhouse full of books. Every bookseller nightmare at once.', 'glass, library, building, client, architecture'],
      ["Helena at the studio says I should apply for the senior post in Porto.", 'Porto! Would you move? What would Tomás say?', 'Helena, colleague, senior post, promotion, Porto, job application, career, move'],
      ["I haven't asked him. I haven't even decided if I want it.", 'Then decide first, and ask him second. But not too long second.', 'decision, job, Porto, Tomás, doubt'],
      ['I started cello lessons on Wednesdays. My teacher is eighty and terrifying.', 'Cello! You always said you wanted to. What is she like?', 'cello, music lessons, teacher, Wednesday, instrument, hobby'],
      ["Her name is Mrs. Varga. She taps my bow hand with a pencil when it droops.", 'I like her already.', 'Mrs. Varga, cello teacher, bow, pencil, strict'],
      ['Any word from the landlord?', 'He sent a man who looked at the wall, said "yes, damp", and left.', 'Mr. Okafor, landlord, damp, repairs, workman, bookshop'],
      ["That's not a repair, that's a diagnosis.", 'Exactly what I told him. He sent another photo of the boat.', 'landlord, repair, boat, complaint'],
      ['The agency sent a forty-page questionnaire. Page twelve asks about my childhood fears.', 'What did you put?', 'adoption, agency, questionnaire, forms, paperwork, childhood'],
      ["Deep water and geese. I told the truth.", 'Geese are a reasonable fear. They are all muscle and spite.', 'fears, deep water, geese, questionnaire, truth'],
    ],
  },
  {
    start: '2025-03-16T20:00:00',
    exchanges: [
      ['I did it. I fell off the wall on Friday and broke my wrist.', 'Ada! I said this would happen. Show me.', 'climbing wall, fall, broken wrist, injury, Friday, cast, hospital'],
      ["Six weeks in a cast. The doctor at São João was very kind about it.", 'Six weeks. So no cello either.', 'cast, six weeks, doctor, São João, hospital, healing'],
      ['No cello, no drawing. Helena has me reviewing other people’s plans instead.', 'Reviewing is drawing with your mouth. You will survive.', 'work, reviewing plans, Helena, left-handed, studio'],
      ['Tomás has been cutting my food for me. Like I am five.', 'Let him. It is how he says he was frightened.', 'Tomás, care, help, meals, worry'],
      ['I looked into the Porto job properly. The salary is much better.', 'And the rest of it? The city, the friends, the river?', 'Porto, job, salary, money, pay, career, move, decision'],
      ["I'd be leaving you, and Lena, and Mrs. Varga.", "We are three hours away by train, not on the moon.", 'leaving, friends, train, distance, Porto'],
      ["A woman came into the shop today asking for a book she couldn't name. 'Blue cover, sad ending.'", 'Did you find it?', 'bookshop, customer, blue cover, sad ending, search'],
      ['Mira, that was you telling me.', 'So it was. And yes: it took me an hour, and it was green.', 'customer, book, found, green cover, bookshop'],
      ['The home visit is booked. The twenty-eighth of March, at ten.', 'I will come over the night before and help you hide the mess.', 'adoption, home visit, social worker, 28 March, appointment, cleaning'],
      ["Biscuit knocked over the lamp again, by the way. The good one my grandmother gave me.", 'Oh no. Is it broken?', 'Biscuit, dog, lamp, broken, grandmother, heirloom'],
      ['Only the shade. I glued it. You can barely see the crack.', 'Then it has a story now. Objects with stories are better.', 'lamp, repaired, glue, crack, story'],
    ],
  },
  {
    start: '2025-03-29T19:30:00',
    exchanges: [
      ['The home visit was yesterday. The social worker was a man called Duarte, very quiet.', 'And? Do not make me beg.', 'adoption, home visit, social worker, Duarte, yesterday'],
      ['He liked the garden. He asked a lot about our hours and who would look after a child.', 'What did you tell him?', 'adoption, garden, childcare, work hours, interview, questions'],
      ["That I'd go part-time. Which means I'm not taking Porto, I suppose.", 'You suppose, or you know?', 'part-time, decision, Porto, job, turned down, career, family'],
      ["I know. I wrote to Helena this morning and said no.", 'That took courage. How do you feel?', 'Helena, declined, refused, said no, Porto job, letter, decision'],
      ['Lighter. Sad for a minute, then lighter.', 'That is usually how the right choices feel.', 'relief, feelings, choice'],
      ["Your wall. What happened with the wall?", 'Mr. Okafor has agreed to fix it in May. In writing. I framed the letter.', 'Mr. Okafor, landlord, wall, damp, repair, May, letter, framed'],
      ["Framed it! You should hang it over the till.", 'It is over the till. Customers think it is a poem.', 'letter, till, customers, framed, bookshop'],
      ['I started writing the speech for the wedding. Tomás says it is too long.', 'How long is it?', 'wedding speech, Lena, draft, writing, Tomás, too long'],
      ["Eleven minutes. It has three stories about Lena falling into rivers.", 'Keep one river. The best river.', 'speech, eleven minutes, Lena, rivers, stories, edit'],
      ['Are you still doing the Portuguese novel?', 'Finished it. The keeper dies, the lighthouse lives. I cried in the shop.', 'Portuguese novel, lighthouse keeper, finished, ending, cried, book'],
    ],
  },
  {
    start: '2025-04-06T17:00:00',
    exchanges: [
      ['Guess who is running the city half marathon in May.', 'Not you. You have a broken wrist.', 'half marathon, running, race, May, city, sport, training'],
      ['Tomás. He signed up on Monday, to replace the shoes, he says.', 'The shoes the dog ate. Of course.', 'Tomás, half marathon, signed up, running shoes, Biscuit'],
      ["He's training at six every morning. Biscuit goes with him and comes back filthy.", 'Your house must smell wonderful.', 'training, six in the morning, Biscuit, dog, mud, running'],
      ["The cast comes off in ten days. I'm counting.", 'And then back on the wall, knowing you.', 'cast, wrist, ten days, healing, climbing'],
      ["No more wall. I promised Tomás. I'm going to try swimming instead.", 'Swimming? You are afraid of deep water. It was on your form.', 'promise, Tomás, climbing, quit, swimming, deep water, fear'],
      ["The shallow end. Baby steps. The municipal pool has adult classes on Saturdays.", 'Then I will come and cheer from the edge in my coat.', 'swimming lessons, municipal pool, Saturday, adult class, shallow end'],
      ['How is your own writing, by the way? The shop novel.', "Chapter nine. The bookseller has fallen in love with a customer who only buys atlases.", 'Mira, novel, writing, chapter nine, bookseller, atlases, love story'],
      ['Is the customer real?', 'Every writer denies it. I deny it.', 'customer, real, denial, inspiration'],
      ['My grandmother is in hospital in Braga. Her heart. Mum says it is not serious.', 'Oh, Ada. Are you going up to see her?', 'grandmother, hospital, Braga, heart, illness, mother, family, worry'],
      ["On Thursday, by train. I'll bring her the crossword books she likes.", 'Bring her the lamp story too. She will like that it survived.', 'train, Thursday, visit, Braga, crossword books, grandmother, lamp'],
      ['The agency called. We passed the first stage.', 'Ada! That is wonderful! What comes next?', 'adoption, agency, first stage, approved, passed, good news'],
      ['A training course for new parents, six evenings, in May.', "Between the wedding and the marathon. You two don't do quiet months.", 'parenting course, six evenings, May, adoption, training, busy'],
    ],
  },
  {
    start: '2025-04-19T21:00:00',
    exchanges: [
      ['I gave the speech today. At the farm. With a paper in my hand, like you said.', 'And? How many rivers?', 'wedding, speech, Lena, farm, today, paper, advice'],
      ['One river. People laughed in the right places, and Lena cried.', 'Then it was a perfect speech.', 'speech, river story, laughter, Lena, cried, success'],
      ["Tomás danced with my grandmother. She came down from Braga after all.", 'She is well enough to dance? That is the best news of the day.', 'Tomás, dance, grandmother, Braga, recovered, wedding, health'],
      ["The cast is off, too. My wrist looks like a pale little chicken leg.", 'Show me. Yes. Very chicken.', 'cast off, wrist, healed, pale, arm'],
      ['I went to the pool twice. I can float now, if someone holds the back of my head.', 'Floating is most of swimming, I am told.', 'swimming, pool, float, lessons, progress, deep water'],
      ["Lena's husband is a fisherman from Peniche, did I tell you? Rui.", 'You did not. A fisherman! Does he smell of the sea?', 'Rui, Lena, husband, fisherman, Peniche, brother-in-law'],
      ["Of the sea and of diesel. He gave every guest a tin of sardines as a favour.", 'A tin of sardines. That is the best wedding favour I have ever heard of.', 'Rui, sardines, tin, wedding favour, gift, guests'],
      ['How did it go with the landlord? Did the men come?', 'Not yet. May, he says. But a pipe burst under the travel section on Tuesday.', 'landlord, Mr. Okafor, pipe burst, leak, flood, travel section, Tuesday, bookshop'],
      ['Oh no. Did you lose many books?', 'Forty atlases. The customer from chapter nine would weep.', 'atlases, water damage, books lost, forty, customer'],
      ["I'll come on Sunday and help you sort the wet ones.", 'Bring your clever hands, both of them now.', 'help, Sunday, sorting books, bookshop, wet'],
    ],
  },
  {
    start: '2025-05-03T18:00:00',
    exchanges: [
      ['The parenting course started. Six couples and a man who takes notes on everything.', 'Every course has that man. Was it useful?', 'parenting course, adoption, couples, notes, class, first evening'],
      ['We practised changing a nappy on a doll. Tomás put it on backwards.', 'Backwards! How does a nappy even go on backwards?', 'nappy, diaper, doll, practice, Tomás, mistake, baby'],
      ["Tape at the front. The doll looked betrayed.", 'Poor doll. It will need therapy.', 'nappy, doll, joke'],
      ["The half marathon is in two weeks. Tomás ran eighteen kilometres on Sunday.", 'Eighteen! Is he going to make it?', 'half marathon, Tomás, training, eighteen kilometres, Sunday, running, race'],
      ['He wants under two hours. I want him to finish without crying.', 'Those are both good goals.', 'goal, two hours, finish, race, Tomás'],
      ['Your wall is being fixed right now, isn’t it?', 'Since Monday. The whole shop is in boxes and I sell books from the pavement.', 'wall, repair, builders, Mr. Okafor, boxes, pavement, bookshop, Monday'],
      ["From the pavement! Is anyone buying?", 'More than inside. People cannot resist a book in the sun.', 'selling, street, customers, sales, outdoor, sun'],
      ["I can swim a whole length now. Breaststroke, badly.", 'A whole length! From the girl who feared deep water.', 'swimming, length, breaststroke, pool, progress, fear, deep water'],
      ["Mrs. Varga let me back on Wednesday. She said my bowing is worse but my posture is better.", 'That is the most Mrs. Varga sentence I have ever heard.', 'cello, Mrs. Varga, lessons, Wednesday, bowing, posture, back'],
      ["What about your novel?", 'Chapter twelve. They kissed in the atlas section, which is now underwater.', 'Mira, novel, chapter twelve, kiss, atlas section, flood, writing'],
      ['Mira, that is tragic and perfect.', 'Fiction is just the damp telling the truth.', 'fiction, joke, damp'],
    ],
  },
  {
    start: '2025-05-17T19:00:00',
    exchanges: [
      ["He did it. One hour fifty-eight. I screamed so loud a policeman looked at me.", 'Tomás! Under two hours! Was he crying?', 'Tomás, half marathon, finished, time, 1:58, race, cheered, policeman'],
      ['He was. So was I. Biscuit licked the salt off his legs.', 'A family of criers and one practical dog.', 'crying, Biscuit, salt, dog, family, finish line'],
      ['The agency sent the second-stage papers. Medical reports for both of us.', 'Doctors again. How is the wrist in all this?', 'adoption, second stage, medical reports, doctors, paperwork, agency'],
      ["Fine. The doctor said I heal like a teenager. I'll take it.", 'Take it and frame it, like my letter.', 'doctor, wrist, healed, compliment, teenager'],
      ['The shop is finished? The wall?', 'Dry as a biscuit. Sorry, as a cracker. I reopened on Thursday with a party.', 'wall, repaired, dry, reopened, party, Thursday, bookshop, damp fixed'],
      ["Did Mr. Okafor come to the party?", 'He came with a bottle of wine and a photo of his boat. I let him stay.', 'Mr. Okafor, landlord, party, wine, boat photo, reconciled'],
      ['Lena and Rui are back from their honeymoon. Azores. She says it rained every day.', 'And was she happy anyway?', 'Lena, Rui, honeymoon, Azores, rain, holiday, trip'],
      ["Very. She came back with a whale tooth necklace and a sunburn, somehow.", 'Sunburn in the rain. Only Lena.', 'whale tooth necklace, souvenir, sunburn, Lena'],
      ['Tomás wants to paint the spare room yellow. For later.', 'For the child. Yellow is a good choice: not blue, not pink, just sun.', 'spare room, paint, yellow, nursery, child, Tomás, adoption, decorating'],
      ["I wanted green. We compromised on yellow.", 'That is what marriage is, I hear. Yellow.', 'green, yellow, compromise, marriage'],
    ],
  },
  {
    start: '2025-05-31T20:30:00',
    exchanges: [
      ['My grandmother sent a parcel. Her recipe book, the one with the burnt cover.', 'Her recipe book! She never lets anyone touch it.', 'grandmother, parcel, recipe book, burnt cover, cookbook, gift, heirloom'],
      ['She wrote inside: "for when the little one comes". I cried on the doorstep.', 'She knows about the adoption, then.', 'grandmother, note, little one, adoption, crying, doorstep'],
      ['Mum told her. Everyone knows now. The whole family has opinions about names.', 'Of course they do. What are the favourites?', 'family, names, baby names, opinions, mother, adoption'],
      ["Grandma wants Amélia. Tomás wants something short. I don't care as long as it isn't Brunhilde.", 'Noted. I will stop suggesting Brunhilde.', 'names, Amélia, grandmother, Tomás, short name, Brunhilde, joke'],
      ["The studio gave the Porto job to Filipe in the end.", 'Filipe. Is he good?', 'Porto job, Filipe, studio, colleague, promotion, given'],
      ["Very good. And now I'm his old desk, with the window. Everyone wins.", 'A window desk is worth a promotion, in my opinion.', 'desk, window, office, work, Filipe'],
      ['I swam in the sea last weekend. Properly. At Peniche, with Rui watching like a lifeguard.', 'The sea! Ada, that is deep water. Real deep water.', 'sea, swimming, Peniche, Rui, deep water, weekend, fear conquered, beach'],
      ['I only went in up to my neck. But I put my face under.', 'That counts. That counts completely.', 'sea, face underwater, brave, progress'],
      ['How is the novel?', "I finished the first draft on Tuesday. Two hundred and ninety pages. I don't know what to do now.", 'Mira, novel, first draft, finished, Tuesday, 290 pages, writing'],
      ['Send it to someone! A publisher, an agent.', 'You first. You read it first, and then I decide.', 'publisher, agent, manuscript, reader, Ada reads it'],
      ["Deal. Give it to me next time.", 'Next time. Wrapped in brown paper, like a secret.', 'deal, next time, manuscript, brown paper, promise'],
    ],
  },
  {
    start: '2025-06-14T19:00:00',
    exchanges: [
      ["Here it is, then? The famous manuscript?", 'In brown paper, as promised. Be kind. Or be honest. No, be kind.', 'manuscript, brown paper, novel, Mira, gave, reading'],
      ['The agency called on Wednesday. We are approved. Fully approved.', 'Ada. Oh, Ada. Come here.', 'adoption, approved, agency, Wednesday, final approval, good news, family'],
      ["Now we wait to be matched. It could be months. It could be a year.", 'Then we wait with you. I am very good at waiting, I run a bookshop.', 'matching, waiting, months, year, adoption, patience'],
      ['Tomás finished painting the room. Yellow, with one green wall. He surprised me.', 'One green wall for you. He listens after all.', 'Tomás, painted, spare room, yellow, green wall, nursery, surprise'],
      ["Mrs. Varga says I can play in the autumn student concert. Something easy. Saint-Saëns, The Swan.", 'The Swan! I will sit in the front row and weep.', 'cello, Mrs. Varga, concert, autumn, The Swan, Saint-Saëns, performance'],
      ["Biscuit is going to dog school. He ate a library book. Yours, technically.", 'Which one?', 'Biscuit, dog, training school, chewed, library book, Mira'],
      ['The lighthouse one. The Portuguese one.', 'The keeper dies twice, then. I will forgive him.', 'Portuguese novel, lighthouse, chewed, Biscuit, forgive'],
      ["Lena is pregnant. She told us on Sunday, at lunch, with a sardine tin.", 'Lena! With a sardine tin! That family has a theme.', 'Lena, pregnant, baby, Sunday lunch, sardine tin, news, Rui'],
      ["So our child and hers might be nearly the same age.", 'Cousins who grow up together. That is a lucky thing.', 'cousins, children, same age, family, future'],
      ["Thank you for all these evenings, Mira. I mean it.", 'Go home. Read my book. Come back and lie to me about it.', 'thanks, friendship, evenings, goodbye, manuscript'],
    ],
  },
];

/** The story's clock when the questions are asked: the evening after the last session. */
export const ASKED_AT = '2025-06-15T21:00:00';

export const QUESTIONS: readonly Question[] = [
  // In other words than the story used.
  { kind: 'other words', ask: 'What did Tomás and I look into for starting a family?', evidence: ['s1e2'] },
  { kind: 'other words', ask: 'Remind me what my music teacher is like.', evidence: ['s2e6', 's2e7'] },
  { kind: 'other words', ask: 'How did I hurt my arm?', evidence: ['s3e1'] },
  { kind: 'other words', ask: 'Did I take that promotion in the north in the end?', evidence: ['s4e3', 's4e4'] },
  { kind: 'other words', ask: 'What happened to the atlases in your shop?', evidence: ['s6e8', 's6e9'] },
  { kind: 'other words', ask: 'What present did the guests get at my sister’s wedding?', evidence: ['s6e7'] },
  { kind: 'other words', ask: 'What scares me, according to what I wrote for the agency?', evidence: ['s2e11'] },
  { kind: 'other words', ask: 'How fast did my husband run the race?', evidence: ['s8e1'] },
  { kind: 'other words', ask: 'What did Lena bring back from her trip?', evidence: ['s8e8'] },
  { kind: 'other words', ask: 'What did the dog destroy?', evidence: ['s1e10', 's3e10', 's10e6'] },
  { kind: 'other words', ask: 'Who came to check our house?', evidence: ['s4e1'] },
  { kind: 'other words', ask: 'What did my gran mail me?', evidence: ['s9e1'] },
  // Two things at once.
  { kind: 'two things', ask: 'How are my swimming and my cello coming along?', evidence: ['s7e8', 's7e9'] },
  { kind: 'two things', ask: 'What is going on with your novel and with the damp wall?', evidence: ['s9e9', 's8e5'] },
  { kind: 'two things', ask: 'Tell me about Lena’s husband and their honeymoon.', evidence: ['s6e6', 's8e7'] },
  { kind: 'two things', ask: 'What did my grandmother do at the wedding, and what did she send me afterwards?', evidence: ['s6e3', 's9e1'] },
  { kind: 'two things', ask: 'Which colour did we paint the spare room, and what names does the family like?', evidence: ['s10e4', 's9e4'] },
  { kind: 'two things', ask: 'What did the social worker ask, and how did the parenting course go?', evidence: ['s4e2', 's7e2'] },
  { kind: 'two things', ask: 'Who got the Porto job, and where do I sit now?', evidence: ['s9e5', 's9e6'] },
  { kind: 'two things', ask: 'Was the landlord at your reopening, and what did he bring?', evidence: ['s8e6'] },
  // When something happened.
  { kind: 'when', ask: 'When did I break my wrist?', evidence: ['s3e1'] },
  { kind: 'when', ask: 'When was the home visit booked for?', evidence: ['s3e9'] },
  { kind: 'when', ask: 'When did Tomás sign up for the half marathon?', evidence: ['s5e2'] },
  { kind: 'when', ask: 'What did I tell you two weeks ago?', evidence: ['s9'] },
  { kind: 'when', ask: 'What were we talking about a month ago?', evidence: ['s8'] },
  { kind: 'when', ask: 'What happened on 19 April 2025?', evidence: ['s6e1', 's6e3'] },
  { kind: 'when', ask: 'What did you say about your novel on 6 April 2025?', evidence: ['s5e7'] },
  { kind: 'when', ask: 'When did you finish the first draft?', evidence: ['s9e9'] },
  { kind: 'when', ask: 'When did I first tell you about the adoption?', evidence: ['s1e2'] },
  { kind: 'when', ask: 'When did we get the final approval?', evidence: ['s10e2'] },
];
